package dev.kernelgen.maven.launcher;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.kernelgen.annotations.Target;
import dev.kernelgen.driver.LibraryModel;
import dev.kernelgen.maven.generate.InMemoryCompiler;
import dev.kernelgen.runtime.DataType;
import dev.kernelgen.runtime.Device;
import dev.kernelgen.runtime.Devices;
import dev.kernelgen.runtime.HostTensor;
import dev.kernelgen.runtime.launch.DeviceTensor;
import java.io.File;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Compiles a generated launcher in memory and runs it on every device this machine has. */
class GeneratedLauncherRunTest {
  @TempDir static Path tmp;
  static Class<?> launcher;

  @BeforeAll
  static void build() throws Exception {
    Path res = tmp.resolve("res");
    LibraryModel m =
        LauncherGeneratorTest.model(
            TestSpecs.MathSpec.class, res, Target.C, Target.JAVA, Target.OPENCL);
    List<InMemoryCompiler.Source> sources = new ArrayList<>();
    for (LauncherGenerator.GeneratedSource s : LauncherGenerator.generate(m)) {
      sources.add(new InMemoryCompiler.Source(s.path(), s.content()));
    }
    List<Path> cp =
        Arrays.stream(System.getProperty("java.class.path").split(File.pathSeparator))
            .map(Path::of)
            .toList();
    ClassLoader resources =
        new URLClassLoader(
            new URL[] {res.toUri().toURL()}, GeneratedLauncherRunTest.class.getClassLoader());
    InMemoryCompiler.Result r = InMemoryCompiler.compileSources(sources, cp, resources);
    launcher = r.loader().loadClass("dev.kernelgen.maven.launcher.MathKernels");
  }

  static Object load(Device d) throws Exception {
    return launcher.getMethod("load", Device.class).invoke(null, d);
  }

  static float[] expected(float[] x, int m, int n) {
    float[] out = new float[m];
    for (int i = 0; i < m; i++) {
      float s = 0;
      for (int k = 0; k < n; k++) {
        s += x[i * n + k] * 2f;
      }
      out[i] = s + 1f;
    }
    return out;
  }

  static void runOn(Device device) throws Exception {
    try (AutoCloseable k = (AutoCloseable) load(device)) {
      Method host = launcher.getMethod("rowSum", HostTensor.class, HostTensor.class);
      Method alloc = launcher.getMethod("allocateRowSumOutput", HostTensor.class);
      for (int n : new int[] {4, 5}) { // 4 runs the specialized kernel
        int m = 3;
        float[] x = new float[m * n];
        for (int i = 0; i < x.length; i++) {
          x[i] = i * 0.5f - 2;
        }
        try (HostTensor in = HostTensor.of(x, m, n);
            HostTensor out = (HostTensor) alloc.invoke(k, in)) {
          assertThat(out.shape()).containsExactly(m);
          host.invoke(k, in, out);
          assertThat(out.toFloatArray())
              .as(device.name() + " n=" + n)
              .containsExactly(expected(x, m, n));
        }
      }
    }
  }

  @Test
  void runsOnJava() throws Exception {
    runOn(Devices.java());
  }

  @Test
  void runsOnC() throws Exception {
    Optional<? extends Device> cpu = Devices.cpu();
    org.junit.jupiter.api.Assumptions.assumeTrue(cpu.isPresent(), Devices.describe());
    runOn(cpu.get());
  }

  @Test
  void runsOnOpenClWithHostAndDeviceTensors() throws Exception {
    Optional<? extends Device> cl = Devices.openCl();
    org.junit.jupiter.api.Assumptions.assumeTrue(cl.isPresent(), Devices.describe());
    runOn(cl.get());
    try (AutoCloseable k = (AutoCloseable) load(cl.get());
        HostTensor x = HostTensor.of(new float[] {1, 2, 3, 4, 5, 6}, 2, 3);
        DeviceTensor dx = DeviceTensor.upload(cl.get(), x);
        DeviceTensor out =
            (DeviceTensor)
                launcher.getMethod("allocateRowSumOutput", DeviceTensor.class).invoke(k, dx)) {
      launcher.getMethod("rowSum", DeviceTensor.class, DeviceTensor.class).invoke(k, dx, out);
      try (HostTensor h = out.toHost()) {
        assertThat(h.toFloatArray()).containsExactly(13f, 31f);
      }
    }
  }

  @Test
  void shapeAndDtypeMismatchesNameTheArgumentAndDim() throws Exception {
    try (AutoCloseable k = (AutoCloseable) load(Devices.java());
        HostTensor x = HostTensor.zeros(DataType.FLOAT32, 3, 5);
        HostTensor wrong = HostTensor.zeros(DataType.FLOAT32, 4);
        HostTensor ints = HostTensor.zeros(DataType.INT32, 3, 5)) {
      Method host = launcher.getMethod("rowSum", HostTensor.class, HostTensor.class);
      assertThatThrownBy(() -> call(host, k, x, wrong))
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessage("rowSum: argument 'out' has 4 at dim 0 (shape [4]), expected m = 3");
      assertThatThrownBy(() -> call(host, k, ints, wrong))
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessage("rowSum: argument 'x' is INT32, expected FLOAT32");
    }
  }

  @Test
  void aLibraryWithoutTheDevicesTargetSaysSo() {
    Device cuda = CudaTests.deviceOrSkip();
    assertThatThrownBy(() -> call(launcher.getMethod("load", Device.class), null, cuda))
        .hasMessageContaining("has no kernels for CUDA");
  }

  private static Object call(Method m, Object target, Object... args) throws Throwable {
    try {
      return m.invoke(target, args);
    } catch (InvocationTargetException e) {
      throw e.getCause();
    }
  }
}
