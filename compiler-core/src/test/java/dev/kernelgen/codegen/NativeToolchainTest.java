package dev.kernelgen.codegen;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.catchThrowable;

import dev.kernelgen.diag.UserError;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class NativeToolchainTest {
  @TempDir Path tmp;

  @Test
  void aMissingCompilerIsNamedWithWhereItWasLookedFor() {
    NativeToolchain tc = NativeToolchain.fromEnvironment().withSearchPath(List.of(tmp));
    assertThat(tc.findCc()).isEmpty();
    assertThatThrownBy(() -> tc.compileSharedLibrary("int x;", tmp.resolve("x.so")))
        .isInstanceOf(UserError.class)
        .hasMessageContaining("C compiler not found")
        .hasMessageContaining("cc, gcc, clang")
        .hasMessageContaining(tmp.toString())
        .hasMessageContaining("NativeToolchain.withCc");
  }

  @Test
  void aMissingConfiguredNvccNamesThePath() {
    Path nvcc = tmp.resolve("bin/nvcc");
    NativeToolchain tc = NativeToolchain.fromEnvironment().withNvcc(nvcc);
    assertThatThrownBy(() -> tc.compilePtx("", "compute_90"))
        .isInstanceOf(UserError.class)
        .hasMessageContaining("CUDA compiler " + nvcc + " (configured explicitly)")
        .hasMessageContaining("NativeToolchain.withNvcc");
  }

  @Test
  void aCompileErrorQuotesTheCompilerAndKeepsTheSource() throws Exception {
    NativeToolchain tc = NativeToolchain.fromEnvironment();
    Assumptions.assumeTrue(tc.findCc().isPresent(), "no C compiler (cc, gcc, clang) on PATH");
    Throwable e =
        org.assertj.core.api.Assertions.catchThrowable(
            () ->
                tc.compileSharedLibrary(
                    "void f(void) { undeclared_thing = 1; }\n", tmp.resolve("f.so")));
    assertThat(e).isInstanceOf(UserError.class).hasMessageContaining("undeclared_thing");
    Matcher m = Pattern.compile("compiling (\\S+kernels\\.c) failed").matcher(e.getMessage());
    assertThat(m.find()).as(e.getMessage()).isTrue();
    assertThat(Files.readString(Path.of(m.group(1)))).contains("undeclared_thing");
  }

  @Test
  void aHangingCompilerIsKilledWithItsChildrenAtTheTimeout() throws Exception {
    Path pidFile = tmp.resolve("child.pid");
    Path fake = tmp.resolve("fake-cc");
    // Prints a little, starts a child that keeps the output pipe open, and hangs.
    Files.writeString(
        fake, "#!/bin/sh\necho compiling\nsleep 300 &\necho $! > " + pidFile + "\nsleep 300\n");
    Assumptions.assumeTrue(fake.toFile().setExecutable(true), "cannot make a script executable");
    NativeToolchain tc = NativeToolchain.fromEnvironment().withCc(fake).withTimeout(2);
    long start = System.nanoTime();
    Throwable e = catchThrowable(() -> tc.compileSharedLibrary("int x;", tmp.resolve("x.so")));
    double seconds = (System.nanoTime() - start) / 1e9;
    assertThat(e)
        .isInstanceOf(UserError.class)
        .hasMessageContaining(fake + " did not finish within 2 s compiling ")
        .hasMessageContaining("kernels.c")
        .hasMessageContaining("killed");
    assertThat(seconds).as("returned at the timeout, not when the tool ended").isLessThan(30);
    long child = Long.parseLong(Files.readString(pidFile).strip());
    ProcessHandle h = ProcessHandle.of(child).orElse(null);
    if (h != null) {
      h.onExit().get(10, java.util.concurrent.TimeUnit.SECONDS);
    }
    assertThat(ProcessHandle.of(child).map(ProcessHandle::isAlive))
        .as("the child")
        .isNotEqualTo(java.util.Optional.of(true));
  }

  @Test
  void isaLevelsAreChecked() {
    NativeToolchain tc = NativeToolchain.fromEnvironment();
    assertThat(tc.isaLevels()).containsExactly("x86-64-v2", "x86-64-v3", "x86-64-v4");
    assertThat(tc.cFlags()).noneMatch(f -> f.startsWith("-march"));
    assertThatThrownBy(() -> tc.withIsaLevels(List.of()))
        .isInstanceOf(UserError.class)
        .hasMessageContaining("no CPU ISA level");
    assertThatThrownBy(() -> tc.withIsaLevels(List.of("x86-64-v3", "x86-64-v3")))
        .hasMessageContaining("repeat");
    assertThatThrownBy(() -> tc.withIsaLevels(List.of("-O0")))
        .hasMessageContaining("'-O0' is not a -march value");
  }

  @Test
  void tuningMeasuresAtTheBestConfiguredLevelTheCpuRuns() {
    NativeToolchain tc = NativeToolchain.fromEnvironment();
    Assumptions.assumeTrue(tc.findCc().isPresent(), "no C compiler on PATH");
    String arch = System.getProperty("os.arch");
    Assumptions.assumeTrue(arch.equals("amd64") || arch.equals("x86_64"), "not x86-64: " + arch);
    assertThat(tc.withIsaLevels(List.of("x86-64-v2")).nativeIsaLevel()).isEqualTo("x86-64-v2");
    assertThat(tc.withIsaLevels(List.of("native")).nativeIsaLevel()).isEqualTo("native");
    assertThat(tc.nativeIsaLevel()).isIn("x86-64-v2", "x86-64-v3", "x86-64-v4");
    // The C harness measures at that level: CHarnessMeasurerTest in the measure module.
  }

  @Test
  void rejectsMalformedCudaArchitectures() {
    assertThatThrownBy(() -> NativeToolchain.fromEnvironment().compilePtx("", "90"))
        .isInstanceOf(UserError.class)
        .hasMessageContaining("'90'");
  }

  @Test
  void levelsCompileAtOnceAndTheFirstFailingLevelInOrderIsNamed() throws Exception {
    NativeToolchain tc = NativeToolchain.fromEnvironment();
    Assumptions.assumeTrue(tc.findCc().isPresent(), "no C compiler (cc, gcc, clang) on PATH");
    String good = "int kg_answer(void) { return 42; }\n";
    String bad = "int kg_answer(void) { return undeclared_name; }\n";
    Map<String, String> sources = new LinkedHashMap<>();
    sources.put("x86-64-v2", bad);
    sources.put("x86-64-v3", good);
    sources.put("x86-64-v4", bad);
    // The last level starts first; the error is still the first level's in the map's order.
    Throwable t =
        catchThrowable(() -> tc.compileSharedLibraries(sources, l -> tmp.resolve(l + ".so")));
    assertThat(t)
        .isInstanceOf(UserError.class)
        .hasMessageStartingWith("ISA level x86-64-v2: ")
        .hasMessageContaining("undeclared_name");
    sources.put("x86-64-v2", good);
    sources.put("x86-64-v4", good);
    var libs = tc.compileSharedLibraries(sources, l -> tmp.resolve("ok-" + l + ".so"));
    assertThat(libs.keySet()).containsExactly("x86-64-v2", "x86-64-v3", "x86-64-v4");
    for (Path so : libs.values()) {
      assertThat(Files.size(so)).isPositive();
    }
  }
}
