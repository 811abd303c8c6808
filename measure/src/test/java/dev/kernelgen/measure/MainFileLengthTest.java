package dev.kernelgen.measure;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * A file is a room a reader can hold: no main source file of the product modules ({@code
 * compiler-core}, {@code runtime}, {@code measure}, {@code maven-plugin}) has more than {@value
 * #MAX_LINES} lines, except the few listed in {@link #ALLOWED}, each one concept with its reason. A
 * source scan from the repository root, as {@link NoOtherMeasurementPathTest}'s.
 */
class MainFileLengthTest {
  private static final Path ROOT = Path.of("..").toAbsolutePath().normalize();

  static final int MAX_LINES = 450;

  static final Set<String> MODULES = Set.of("compiler-core", "runtime", "measure", "maven-plugin");

  /** The long files that stay whole (at most two), each with why: paths relative to the root. */
  static final Map<String, String> ALLOWED =
      Map.of(
          "compiler-core/src/main/java/dev/kernelgen/schedule/Stage.java",
          "the schedule primitives of one stage, as TVM's Stage: every primitive checks and changes"
              + " the same leaf iteration variables, relations and attributes of the stage",
          "compiler-core/src/main/java/dev/kernelgen/tune/features/LoopFeatures.java",
          "one feature vector: the index table in its javadoc, the names and the one walk that"
              + " fills each index must be read together, or the indices drift apart");

  @Test
  void noMainFileIsLongerThanTheLimitExceptTheAllowedOnes() throws IOException {
    assertThat(ROOT.resolve("measure/pom.xml")).as("run from the measure module").exists();
    Map<String, Integer> long_ = longMainFiles();
    Set<String> unexpected = new TreeSet<>(long_.keySet());
    unexpected.removeAll(ALLOWED.keySet());
    assertThat(unexpected)
        .as(
            "main files over %d lines (%s): split them by concept, or allow one with its reason",
            MAX_LINES, long_)
        .isEmpty();
  }

  @Test
  void theAllowlistIsShortGivesReasonsAndHoldsOnlyLongFiles() throws IOException {
    assertThat(ALLOWED).as("at most two long files").hasSizeLessThanOrEqualTo(2);
    ALLOWED.forEach((file, reason) -> assertThat(reason).as(file).isNotBlank());
    Map<String, Integer> long_ = longMainFiles();
    // Also shows that the scan finds files at all: Stage.java is long and listed.
    assertThat(long_.keySet())
        .as("allowed files that are no longer long: remove them from the list")
        .containsAll(ALLOWED.keySet());
  }

  /** The main sources of {@link #MODULES} over {@link #MAX_LINES} lines, with their counts. */
  private static Map<String, Integer> longMainFiles() throws IOException {
    Map<String, Integer> out = new TreeMap<>();
    for (String module : MODULES) {
      Path main = ROOT.resolve(module).resolve("src/main/java");
      assertThat(main).as("module sources").isDirectory();
      try (Stream<Path> s = Files.walk(main)) {
        for (Path f : s.filter(p -> p.toString().endsWith(".java")).toList()) {
          int lines = Files.readAllLines(f).size();
          if (lines > MAX_LINES) {
            out.put(ROOT.relativize(f).toString().replace('\\', '/'), lines);
          }
        }
      }
    }
    return out;
  }
}
