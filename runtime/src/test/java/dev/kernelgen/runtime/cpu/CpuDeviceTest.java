package dev.kernelgen.runtime.cpu;

import static dev.kernelgen.runtime.KernelSignature.ParamKind.FLOAT32;
import static dev.kernelgen.runtime.KernelSignature.ParamKind.INT32;
import static dev.kernelgen.runtime.KernelSignature.ParamKind.INT64;
import static dev.kernelgen.runtime.KernelSignature.ParamKind.POINTER;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.kernelgen.annotations.Target;
import dev.kernelgen.runtime.CCompiler;
import dev.kernelgen.runtime.DataType;
import dev.kernelgen.runtime.DeviceBuffer;
import dev.kernelgen.runtime.DeviceException;
import dev.kernelgen.runtime.DeviceTimer;
import dev.kernelgen.runtime.HostTensor;
import dev.kernelgen.runtime.KernelBinary;
import dev.kernelgen.runtime.KernelFunction;
import dev.kernelgen.runtime.KernelModule;
import dev.kernelgen.runtime.KernelSignature;
import dev.kernelgen.runtime.LaunchConfig;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class CpuDeviceTest {
  private static final String SOURCE =
      """
      #include <stdint.h>
      void saxpy(const float* x, float* y, float a, int32_t n) {
        for (int32_t i = 0; i < n; i++) y[i] = a * x[i] + y[i];
      }
      void iota64(int64_t* out, int64_t n, int64_t start) {
        for (int64_t i = 0; i < n; i++) out[i] = start + i;
      }
      """;

  @TempDir static Path dir;
  static byte[] library;
  static CpuDevice cpu;

  @BeforeAll
  static void compile() throws Exception {
    library = CCompiler.compile(dir, SOURCE);
    cpu = CpuDevice.create(new NativeLibraryCache(dir.resolve("cache")));
  }

  @Test
  void launchesACKernelOnHostTensorsWithoutCopies() {
    try (KernelModule m = cpu.loadModule(new KernelBinary.C("saxpy", library));
        HostTensor x = HostTensor.of(new float[] {1, 2, 3, 4});
        HostTensor y = HostTensor.of(new float[] {10, 20, 30, 40})) {
      assertThat(cpu.target()).isEqualTo(Target.C);
      KernelFunction f = m.function("saxpy", KernelSignature.of(POINTER, POINTER, FLOAT32, INT32));
      assertThat(m.function("saxpy", f.signature())).isSameAs(f);
      f.launch(LaunchConfig.HOST, x, y, 2f, 4);
      assertThat(y.toFloatArray()).containsExactly(12, 24, 36, 48);
    }
  }

  @Test
  void launchesOnDeviceBuffersAndInt64Scalars() {
    try (KernelModule m = cpu.loadModule(new KernelBinary.C("iota", library));
        DeviceBuffer out = cpu.allocate(DataType.INT64, 5);
        HostTensor host = HostTensor.zeros(DataType.INT64, 5)) {
      m.function("iota64", KernelSignature.of(POINTER, INT64, INT64))
          .launch(LaunchConfig.HOST, out, 5L, 1L << 33);
      out.copyToHost(host);
      assertThat(host.toLongArray())
          .containsExactly(
              1L << 33, (1L << 33) + 1, (1L << 33) + 2, (1L << 33) + 3, (1L << 33) + 4);
    }
  }

  @Test
  void libraryIsExtractedToItsDigest() {
    Path extracted = dir.resolve("cache").resolve(NativeLibraryCache.sha256(library) + ".so");
    try (KernelModule m = cpu.loadModule(new KernelBinary.C("saxpy", library))) {
      assertThat(extracted).exists();
      assertThat(m.device()).isSameAs(cpu);
    }
  }

  @Test
  void errorsNameTheKernelAndTheProblem() {
    try (KernelModule m = cpu.loadModule(new KernelBinary.C("saxpy", library));
        HostTensor x = HostTensor.of(new float[] {1})) {
      assertThatThrownBy(() -> m.function("nope", KernelSignature.of(POINTER)))
          .isInstanceOf(DeviceException.class)
          .hasMessageContaining("has no function nope");
      KernelFunction f = m.function("saxpy", KernelSignature.of(POINTER, POINTER, FLOAT32, INT32));
      assertThatThrownBy(() -> f.launch(LaunchConfig.HOST, x, x, 2f))
          .hasMessageContaining("kernel saxpy")
          .hasMessageContaining("3 arguments for 4 parameters");
      assertThatThrownBy(() -> f.launch(LaunchConfig.HOST, x, x, 2.0, 1))
          .hasMessageContaining("argument 2 is Double, parameter is FLOAT32");
    }
    assertThatThrownBy(() -> cpu.loadModule(new KernelBinary.OpenCl("k", "kernel void k(){}")))
        .isInstanceOf(DeviceException.class)
        .hasMessageContaining("runs C kernels");
  }

  @Test
  void notALibraryIsReported() throws Exception {
    byte[] junk = "not a shared library".getBytes(java.nio.charset.StandardCharsets.UTF_8);
    assertThatThrownBy(() -> cpu.loadModule(new KernelBinary.C("junk", junk)))
        .isInstanceOf(DeviceException.class)
        .hasMessageContaining("cannot load C kernel library junk");
  }

  @Test
  void timerMeasuresHostTime() throws Exception {
    try (DeviceTimer t = cpu.timer()) {
      t.start();
      Thread.sleep(5);
      t.stop();
      assertThat(t.elapsedMillis()).isGreaterThanOrEqualTo(4.0);
    }
  }

  @Test
  void aLibraryWhoseDependencyIsMissingNamesIt() throws Exception {
    Path work = Files.createDirectories(dir.resolve("dep"));
    Path helper = work.resolve("libkghelper.so");
    run(
        work,
        "cc",
        "-shared",
        "-fPIC",
        "-x",
        "c",
        "-o",
        helper.toString(),
        "-",
        "int helper(int x){return x+1;}");
    Path lib = work.resolve("needs.so");
    run(
        work,
        "cc",
        "-shared",
        "-fPIC",
        "-x",
        "c",
        "-o",
        lib.toString(),
        "-",
        "-L" + work,
        "-lkghelper",
        "int helper(int); int f(int x){return helper(x);}");
    byte[] bytes = Files.readAllBytes(lib);
    assertThat(ElfNeeded.of(bytes)).contains("libkghelper.so");
    Files.delete(helper);
    assertThatThrownBy(() -> cpu.loadModule(new KernelBinary.C("needs", bytes)))
        .isInstanceOf(DeviceException.class)
        .hasMessageContaining("cannot load C kernel library needs (native)")
        .hasMessageContaining("it needs libkghelper.so, which this machine does not have");
  }

  /** Runs a command with {@code stdin} (the last argument) as its input. */
  private static void run(Path dir, String... cmdAndStdin) throws Exception {
    String[] cmd = java.util.Arrays.copyOf(cmdAndStdin, cmdAndStdin.length - 1);
    Process p = new ProcessBuilder(cmd).directory(dir.toFile()).redirectErrorStream(true).start();
    try (var in = p.getOutputStream()) {
      in.write(
          cmdAndStdin[cmdAndStdin.length - 1].getBytes(java.nio.charset.StandardCharsets.UTF_8));
    }
    String out =
        new String(p.getInputStream().readAllBytes(), java.nio.charset.StandardCharsets.UTF_8);
    assertThat(p.waitFor()).as(out).isZero();
  }
}
