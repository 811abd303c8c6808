package dev.kernelgen.measure;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * One compile-and-measure path: no main code outside the places listed here spawns a compiler or a
 * candidate, calls the toolchain's compile methods, or times a kernel. A source scan of every
 * module's {@code src/main/java} (the repository root is this module's parent directory).
 *
 * <p>The rule: {@code codegen.CompilerProcess} (behind {@code codegen.NativeToolchain}) is the one
 * class of the compiler that spawns cc and nvcc, and only {@code measure} (tuning candidates) and
 * the driver's {@code ModuleEmitter} (the shipped libraries and fatbins) call its compile methods.
 * The driver cannot go through this module's measurers: {@code measure} depends on {@code
 * compiler-core}, not the other way round, and a build compiles but does not run or time. Timing
 * (the runtime's {@code DeviceTimer}, {@code System.nanoTime}) is the runtime's (which implements
 * the timers) and this module's.
 */
class NoOtherMeasurementPathTest {
  private static final Path ROOT = Path.of("..").toAbsolutePath().normalize();

  private static final Pattern SPAWN =
      Pattern.compile("new ProcessBuilder\\b|Runtime\\.getRuntime\\(\\)\\.exec\\(");
  private static final Pattern COMPILE =
      Pattern.compile("\\.compile(SharedLibrar(y|ies)|Fatbin|Ptx|Cubin)\\(");
  private static final Pattern TIME = Pattern.compile("\\bDeviceTimer\\b|System\\.nanoTime\\(");

  /** Where each rule allows its pattern (paths relative to the root, prefixes). */
  static final List<String> MAY_SPAWN =
      List.of(
          "compiler-core/src/main/java/dev/kernelgen/codegen/CompilerProcess.java",
          "measure/src/main/java/dev/kernelgen/measure/ChildProcess.java");

  static final List<String> MAY_COMPILE =
      List.of(
          "compiler-core/src/main/java/dev/kernelgen/codegen/NativeToolchain.java",
          "compiler-core/src/main/java/dev/kernelgen/driver/ModuleEmitter.java",
          "measure/src/main/java/");

  static final List<String> MAY_TIME = List.of("runtime/src/main/java/", "measure/src/main/java/");

  /**
   * What still measures on its own: the sample's main, which is a user's program (it shows how to
   * time a launcher with the runtime's timer, and a user's code does not depend on this module).
   * The benchmarks time through this module ({@code LaunchTiming}, {@code WallClockTiming}). Each
   * entry must still break a rule, so the list shrinks as they move onto this module.
   */
  static final Set<String> LEFT =
      Set.of(
          "samples/depthwise-conv/src/main/java/dev/kernelgen/samples/depthwise/DepthwiseMain.java");

  @Test
  void onlyTheListedPlacesCompileOrTimeKernels() throws IOException {
    assertThat(ROOT.resolve("measure/pom.xml")).as("run from the measure module").exists();
    Set<String> offenders = new TreeSet<>();
    for (Path f : mainSources()) {
      String rel = ROOT.relativize(f).toString().replace('\\', '/');
      String src = code(Files.readString(f));
      check(rel, src, SPAWN, MAY_SPAWN, "spawns a process", offenders);
      check(rel, src, COMPILE, MAY_COMPILE, "calls a toolchain compile method", offenders);
      check(rel, src, TIME, MAY_TIME, "times a kernel", offenders);
    }
    List<String> unexpected =
        offenders.stream().filter(o -> !LEFT.contains(o.substring(0, o.indexOf(':')))).toList();
    assertThat(unexpected).as("compiling or timing outside measure").isEmpty();
    Set<String> stillLeft = new TreeSet<>();
    offenders.forEach(o -> stillLeft.add(o.substring(0, o.indexOf(':'))));
    assertThat(stillLeft).as("LEFT lists only files that still break a rule").containsAll(LEFT);
  }

  @Test
  void theScanSeesTheKnownCompilerSpawn() throws IOException {
    // The scan is not vacuous: it finds the toolchain's ProcessBuilder, the runners' timers
    // and the builder's compiles.
    String tc =
        code(
            Files.readString(
                ROOT.resolve(
                    "compiler-core/src/main/java/dev/kernelgen/codegen/CompilerProcess.java")));
    assertThat(SPAWN.matcher(tc).find()).isTrue();
    String runner =
        code(
            Files.readString(
                ROOT.resolve("measure/src/main/java/dev/kernelgen/measure/DeviceRunner.java")));
    assertThat(TIME.matcher(runner).find()).isTrue();
    String builder =
        code(
            Files.readString(
                ROOT.resolve("measure/src/main/java/dev/kernelgen/measure/Builder.java")));
    assertThat(COMPILE.matcher(builder).find()).isTrue();
  }

  private static void check(
      String rel, String src, Pattern p, List<String> allowed, String what, Set<String> out) {
    if (p.matcher(src).find() && allowed.stream().noneMatch(rel::startsWith)) {
      out.add(rel + ": " + what);
    }
  }

  /** The source without comments, so that javadoc naming a timer is not a use of one. */
  private static String code(String src) {
    return src.replaceAll("(?s)/\\*.*?\\*/", "").replaceAll("//[^\n]*", "");
  }

  private static List<Path> mainSources() throws IOException {
    List<Path> out = new ArrayList<>();
    try (Stream<Path> s = Files.walk(ROOT)) {
      s.filter(p -> p.toString().endsWith(".java"))
          .filter(p -> ROOT.relativize(p).toString().replace('\\', '/').contains("/src/main/java/"))
          .filter(p -> !ROOT.relativize(p).toString().replace('\\', '/').startsWith("it/"))
          .filter(p -> !p.toString().contains("/target/"))
          .forEach(out::add);
    }
    return out;
  }
}
