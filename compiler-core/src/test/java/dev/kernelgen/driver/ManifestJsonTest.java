package dev.kernelgen.driver;

import static org.assertj.core.api.Assertions.assertThat;

import dev.kernelgen.annotations.Target;
import dev.kernelgen.json.Json;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.EnumSet;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ManifestJsonTest {
  @TempDir Path tmp;

  /**
   * A manifest read back and written again is the same bytes: members keep their order and the
   * layout is the codec's {@link Json#pretty} (the hand-written writer's, byte for byte).
   */
  @Test
  void manifestRoundTripsByteForByte() throws Exception {
    KernelDriver.generate(
        GenerateRequest.builder()
            .spec(Specs.Small.class, Path.of("src/main/kernels/java/Small.java"))
            .targets(EnumSet.of(Target.C, Target.JAVA, Target.OPENCL))
            .resourcesDir(tmp.resolve("resources"))
            .build());
    String manifest =
        Files.readString(tmp.resolve("resources/META-INF/kernels/SmallKernels/manifest.json"));
    assertThat(manifest)
        .startsWith("{\n  \"format\": ")
        .contains("\"targets\": [\n    \"OPENCL\",\n")
        .contains("\"specialization\": {\n")
        .endsWith("}\n");
    assertThat(Json.pretty(Json.parse(manifest))).isEqualTo(manifest);
  }
}
