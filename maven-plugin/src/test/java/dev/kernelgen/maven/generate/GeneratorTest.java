package dev.kernelgen.maven.generate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.kernelgen.annotations.Target;
import dev.kernelgen.diag.UserError;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class GeneratorTest {
  @TempDir Path tmp;
  final List<String> log = new ArrayList<>();

  static final String SPEC =
      """
      package demo;

      import static dev.kernelgen.te.TE.*;

      import dev.kernelgen.annotations.KernelLibrary;
      import dev.kernelgen.annotations.Operator;
      import dev.kernelgen.annotations.Target;
      import dev.kernelgen.spec.OperatorDef;
      import dev.kernelgen.te.Tensor;
      import dev.kernelgen.te.Var;
      import java.util.List;

      @KernelLibrary(name = "DemoKernels", targets = {Target.JAVA})
      public final class DemoSpec {
        @Operator
        public static OperatorDef scale() {
          Var n = var("n");
          Tensor x = placeholder("x", FLOAT32, n);
          return OperatorDef.of(List.of(x), compute("y", shape(n), i -> x.at(i).mul(%s)));
        }
      }
      """;

  GenerateSettings settings(Set<Target> targets) {
    return settings(targets, null);
  }

  GenerateSettings settings(Set<Target> targets, Path nvcc) {
    return new GenerateSettings(
        tmp.resolve("src/main/kernels/java"),
        tmp.resolve("src/main/kernels/tuning"),
        List.of(),
        tmp.resolve("target/generated-sources/kernels"),
        tmp.resolve("target/generated-resources/kernels"),
        tmp.resolve("target/kernelgen/inputs.sha256"),
        "test",
        targets,
        null,
        nvcc,
        List.of("sm_90"),
        List.of(),
        java.util.Map.of(),
        log::add);
  }

  void writeSpec(String body) throws Exception {
    Path f = tmp.resolve("src/main/kernels/java/demo/DemoSpec.java");
    Files.createDirectories(f.getParent());
    Files.writeString(f, body);
  }

  @Test
  void generatesThenSeesNothingToDoThenRegeneratesOnChange() throws Exception {
    writeSpec(SPEC.formatted("2f"));
    assertThat(Generator.run(settings(Set.of()))).isEqualTo(Generator.Outcome.GENERATED);
    Path launcher = tmp.resolve("target/generated-sources/kernels/demo/DemoKernels.java");
    assertThat(launcher).exists();
    assertThat(tmp.resolve("target/generated-sources/kernels/demo/DemoKernelsJava.java")).exists();
    assertThat(
            tmp.resolve(
                "target/generated-resources/kernels/META-INF/kernels/DemoKernels/manifest.json"))
        .exists();
    long time = Files.getLastModifiedTime(launcher).toMillis();

    log.clear();
    assertThat(Generator.run(settings(Set.of()))).isEqualTo(Generator.Outcome.UP_TO_DATE);
    assertThat(log).anyMatch(l -> l.contains("nothing to generate"));
    assertThat(Files.getLastModifiedTime(launcher).toMillis()).isEqualTo(time);

    writeSpec(SPEC.formatted("3f"));
    assertThat(Generator.run(settings(Set.of()))).isEqualTo(Generator.Outcome.GENERATED);
    assertThat(tmp.resolve("target/generated-sources/kernels/demo/DemoKernelsJava.java"))
        .content()
        .contains("3.0f");
  }

  @Test
  void aRenamedLibrarysKernelsAndLaunchersLeaveTheClassOutput() throws Exception {
    // They stayed in target/classes, and so in the jar, until mvn clean.
    Path classes = Files.createDirectories(tmp.resolve("target/classes"));
    GenerateSettings base = settings(Set.of());
    java.util.function.Supplier<GenerateSettings> withClasses =
        () ->
            new GenerateSettings(
                base.specDirectory(),
                base.tuningDirectory(),
                base.classPath(),
                base.sourcesOutput(),
                base.resourcesOutput(),
                base.stateFile(),
                base.pluginVersion(),
                base.targets(),
                base.cc(),
                base.nvcc(),
                base.cudaArchitectures(),
                base.cFlags(),
                base.cpuIsaLevels(),
                base.tuningDevices(),
                log::add,
                classes,
                null);
    writeSpec(SPEC.formatted("2f"));
    assertThat(Generator.run(withClasses.get())).isEqualTo(Generator.Outcome.GENERATED);
    // What Maven makes of it: the resources copied, the launchers compiled, beside the user's own.
    Path resources = tmp.resolve("target/generated-resources/kernels");
    for (Path p : StaleOutputs.files(resources)) {
      Files.createDirectories(classes.resolve(p).getParent());
      Files.copy(resources.resolve(p), classes.resolve(p));
    }
    Path demo = Files.createDirectories(classes.resolve("demo"));
    for (String c : List.of("DemoKernels", "DemoKernels$Scale", "DemoKernelsJava", "App")) {
      Files.writeString(demo.resolve(c + ".class"), c);
    }
    Path manifest = classes.resolve("META-INF/kernels/DemoKernels/manifest.json");
    assertThat(manifest).exists();

    writeSpec(SPEC.formatted("2f").replace("DemoKernels", "OtherKernels"));
    log.clear();
    assertThat(Generator.run(withClasses.get())).isEqualTo(Generator.Outcome.GENERATED);
    assertThat(manifest).doesNotExist();
    assertThat(demo.resolve("DemoKernels.class")).doesNotExist();
    assertThat(demo.resolve("DemoKernels$Scale.class")).doesNotExist();
    assertThat(demo.resolve("DemoKernelsJava.class")).doesNotExist();
    assertThat(demo.resolve("App.class")).exists(); // not the generator's
    assertThat(log).anyMatch(l -> l.contains("of the previous generation from " + classes));
  }

  @Test
  void aSpecThatDoesNotCompileNamesFileAndLine() throws Exception {
    writeSpec(SPEC.formatted("undefinedThing"));
    assertThatThrownBy(() -> Generator.run(settings(Set.of())))
        .isInstanceOf(UserError.class)
        .hasMessageContaining("kernel specs do not compile")
        .hasMessageContaining("DemoSpec.java:19: error:")
        .hasMessageContaining("undefinedThing");
    assertThat(tmp.resolve("target/kernelgen/inputs.sha256")).doesNotExist();
  }

  @Test
  void aMissingNvccSaysHowToConfigureThePlugin() throws Exception {
    writeSpec(SPEC.formatted("2f").replace("Target.JAVA", "Target.CUDA"));
    assertThatThrownBy(() -> Generator.run(settings(Set.of(), tmp.resolve("no/nvcc"))))
        .isInstanceOf(UserError.class)
        .hasMessageContaining("library 'DemoKernels' (DemoSpec.java) targets CUDA: CUDA compiler")
        .hasMessageContaining("-Dkernels.nvcc=")
        .hasMessageNotContaining("NativeToolchain")
        .hasNoCause();
  }

  /** A {CUDA, C} library without nvcc is told to build C, never a target it does not declare. */
  @Test
  void aMissingNvccProposesOnlyTheLibrarysOwnTargets() throws Exception {
    writeSpec(SPEC.formatted("2f").replace("Target.JAVA", "Target.CUDA, Target.C"));
    assertThatThrownBy(() -> Generator.run(settings(Set.of(), tmp.resolve("no/nvcc"))))
        .isInstanceOf(UserError.class)
        .hasMessageContaining("CUDA Toolkit")
        .hasMessageContaining("-Dkernels.nvcc=")
        .hasMessageContaining("-Dkernels.targets=C.")
        .hasMessageNotContaining("JAVA")
        .hasMessageNotContaining("OPENCL");
  }

  @Test
  void aLibraryOfCudaAloneIsToldItNeedsNvcc() throws Exception {
    writeSpec(SPEC.formatted("2f").replace("Target.JAVA", "Target.CUDA"));
    assertThatThrownBy(() -> Generator.run(settings(Set.of(), tmp.resolve("no/nvcc"))))
        .isInstanceOf(UserError.class)
        .hasMessageContaining("[DemoKernels] declares no target but CUDA")
        .hasMessageNotContaining("-Dkernels.targets=");
  }

  @Test
  void theDigestCoversCompilerVersionsIsaLevelsArchitecturesAndClassPathDirectories()
      throws Exception {
    writeSpec(SPEC.formatted("2f"));
    List<Path> specs = Generator.specFiles(tmp.resolve("src/main/kernels/java"));
    Path cc = tmp.resolve("bin/cc");
    Files.createDirectories(cc.getParent());
    Files.writeString(cc, "#!/bin/sh\necho 'fakecc 12.2.0'\n");
    org.junit.jupiter.api.Assumptions.assumeTrue(cc.toFile().setExecutable(true));
    Path classes = Files.createDirectories(tmp.resolve("deps/classes"));
    Files.writeString(classes.resolve("A.class"), "one");
    java.util.function.BiFunction<List<String>, List<String>, GenerateSettings> with =
        (isa, archs) ->
            new GenerateSettings(
                tmp.resolve("src/main/kernels/java"),
                tmp.resolve("src/main/kernels/tuning"),
                List.of(classes),
                tmp.resolve("target/generated-sources/kernels"),
                tmp.resolve("target/generated-resources/kernels"),
                tmp.resolve("target/kernelgen/inputs.sha256"),
                "test",
                Set.of(Target.C),
                cc,
                null,
                archs,
                List.of(),
                isa,
                java.util.Map.of(),
                log::add,
                null,
                null);
    List<String> levels = List.of("x86-64-v2", "x86-64-v3", "x86-64-v4");
    String base = Generator.digest(with.apply(levels, List.of("sm_90")), specs);
    assertThat(Generator.digest(with.apply(levels, List.of("sm_90")), specs))
        .as("stable")
        .isEqualTo(base);
    assertThat(Generator.digest(with.apply(List.of("x86-64-v3"), List.of("sm_90")), specs))
        .as("ISA levels")
        .isNotEqualTo(base);
    assertThat(Generator.digest(with.apply(levels, List.of("sm_80", "sm_90")), specs))
        .as("CUDA architectures")
        .isNotEqualTo(base);
    Files.writeString(cc, "#!/bin/sh\necho 'fakecc 12.3.0'\n");
    String newCc = Generator.digest(with.apply(levels, List.of("sm_90")), specs);
    assertThat(newCc).as("the compiler's version").isNotEqualTo(base);
    Files.writeString(classes.resolve("A.class"), "two");
    assertThat(Generator.digest(with.apply(levels, List.of("sm_90")), specs))
        .as("a class-path directory's content")
        .isNotEqualTo(newCc);
    assertThat(Generator.pluginCode())
        .as("the plugin's own code")
        .isNotEmpty()
        .allMatch(Files::exists);
  }

  @Test
  void noSpecsIsNotAnError() {
    assertThat(Generator.run(settings(Set.of()))).isEqualTo(Generator.Outcome.NO_SPECS);
  }
}
