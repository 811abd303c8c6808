package dev.kernelgen.maven.launcher;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.kernelgen.annotations.Target;
import dev.kernelgen.runtime.Device;
import dev.kernelgen.runtime.Devices;
import dev.kernelgen.runtime.HostTensor;
import java.nio.file.Path;
import java.util.Optional;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Launchers of operators over element types other than float32, as a new user writes them (an int64
 * row sum whose sums pass 2^32, a float64 softmax, a BOOL mask out of a comparison and into a
 * select): built by the plugin's generator and run on every device this machine has, against the
 * same computation in Java, empty tensors (a dim of 0) among the shapes.
 */
class ElementTypesLauncherTest {
  @TempDir static Path tmp;
  static CompiledLauncher wide;
  static CompiledLauncher masks;

  @BeforeAll
  static void build() throws Exception {
    wide =
        CompiledLauncher.build(
            TestSpecs.WideTypesSpec.class,
            "WideKernels",
            tmp.resolve("wide"),
            LauncherSafetyTest.targets());
    masks =
        CompiledLauncher.build(
            TestSpecs.MaskSpec.class,
            "MaskKernels",
            tmp.resolve("mask"),
            LauncherSafetyTest.targets());
  }

  // The launcher methods' parameter types: one, two or three host tensors.
  private static final Class<?>[] HOST1 = {HostTensor.class};
  private static final Class<?>[] HOST2 = {HostTensor.class, HostTensor.class};
  private static final Class<?>[] HOST3 = {HostTensor.class, HostTensor.class, HostTensor.class};

  static void runOn(Device device) throws Throwable {
    try (AutoCloseable k = wide.load(device)) {
      for (int[] mn : new int[][] {{3, 5}, {7, 129}, {0, 4}, {2, 0}}) {
        int m = mn[0];
        int n = mn[1];
        long[] xs = new long[m * n];
        long[] sums = new long[m];
        double[] ds = new double[m * n];
        for (int i = 0; i < xs.length; i++) {
          xs[i] = (i % 2 == 0 ? 1L : -1L) * ((long) i << 33) + i; // past int32 in every element
          sums[i / n] += xs[i];
          ds[i] = Math.sin(i) * 30;
        }
        try (HostTensor x = HostTensor.of(xs, m, n);
            HostTensor s = (HostTensor) wide.call(k, "allocateRowSum64Output", HOST1, x)) {
          wide.call(k, "rowSum64", HOST2, x, s);
          assertThat(s.toLongArray()).as(device.name() + " " + m + "x" + n).containsExactly(sums);
        }
        if (m > 0) {
          rowStatsOn(device, k, ds, m, n);
        }
        try (HostTensor x = HostTensor.of(ds, ds.length);
            HostTensor y = HostTensor.zeros(dev.kernelgen.runtime.DataType.FLOAT64, ds.length)) {
          wide.call(k, "math64", HOST2, x, y);
          double[] got = y.toDoubleArray();
          for (int i = 0; i < ds.length; i++) {
            double v = ds[i];
            double a = Math.abs(v) + 0.5;
            double want =
                Math.exp(v * 0.1)
                    + Math.log(a)
                    + Math.sqrt(a)
                    + Math.tanh(v)
                    + Math.pow(a, v * 0.25)
                    + Math.floor(v * 3.0)
                    + Math.ceil(v * 0.7);
            assertThat(got[i])
                .as(device.name() + " math64 at x = " + v)
                .isCloseTo(want, within(1e-9 * Math.max(1, Math.abs(want))));
          }
        }
        try (HostTensor x = HostTensor.of(ds, m, n);
            HostTensor y = (HostTensor) wide.call(k, "allocateSoftmax64Output", HOST1, x)) {
          wide.call(k, "softmax64", HOST2, x, y);
          double[] got = y.toDoubleArray();
          for (int i = 0; i < m; i++) {
            double max = Double.NEGATIVE_INFINITY;
            for (int c = 0; c < n; c++) {
              max = Math.max(max, ds[i * n + c]);
            }
            double total = 0;
            for (int c = 0; c < n; c++) {
              total += Math.exp(ds[i * n + c] - max);
            }
            for (int c = 0; c < n; c++) {
              // float64 all the way: far tighter than any float32 kernel could be
              assertThat(got[i * n + c])
                  .as(device.name() + " softmax64 [" + i + ", " + c + "]")
                  .isCloseTo(Math.exp(ds[i * n + c] - max) / total, within(1e-12));
            }
          }
        }
      }
    }
  }

  /** Two outputs of different types from one launcher call, each read back as its own array. */
  static void rowStatsOn(Device device, AutoCloseable k, double[] ds, int m, int n)
      throws Throwable {
    double[] largest = new double[m];
    int[] positives = new int[m];
    for (int i = 0; i < m; i++) {
      largest[i] = Double.NEGATIVE_INFINITY;
      for (int c = 0; c < n; c++) {
        largest[i] = Math.max(largest[i], ds[i * n + c]);
        positives[i] += ds[i * n + c] > 0 ? 1 : 0;
      }
    }
    try (HostTensor x = HostTensor.of(ds, m, n);
        HostTensor big = HostTensor.zeros(dev.kernelgen.runtime.DataType.FLOAT64, m);
        HostTensor pos = HostTensor.zeros(dev.kernelgen.runtime.DataType.INT32, m)) {
      wide.call(k, "rowStats", HOST3, x, big, pos);
      assertThat(big.toDoubleArray()).as(device.name() + " largest").containsExactly(largest);
      assertThat(pos.toIntArray()).as(device.name() + " positives").containsExactly(positives);
      // The outputs swapped: each is checked for its own type, named.
      try (HostTensor wrongBig = HostTensor.zeros(dev.kernelgen.runtime.DataType.INT32, m);
          HostTensor wrongPos = HostTensor.zeros(dev.kernelgen.runtime.DataType.FLOAT64, m)) {
        org.assertj.core.api.Assertions.assertThatThrownBy(
                () -> wide.call(k, "rowStats", HOST3, x, wrongBig, wrongPos))
            .isInstanceOf(IllegalArgumentException.class)
            .hasMessageContaining("is INT32, expected FLOAT64");
      }
    }
  }

  /** BOOL tensors out of a launcher (a comparison) and into one (a select by the mask). */
  static void masksOn(Device device) throws Throwable {
    try (AutoCloseable k = masks.load(device)) {
      for (int n : new int[] {0, 5, 1001}) {
        float[] xs = new float[n];
        boolean[] above = new boolean[n];
        float[] kept = new float[n];
        for (int i = 0; i < n; i++) {
          xs[i] = (float) Math.sin(i * 0.7);
          above[i] = xs[i] > 0.25f;
          kept[i] = above[i] ? xs[i] : 0f;
        }
        try (HostTensor x = HostTensor.of(xs, n);
            HostTensor t = HostTensor.of(new float[] {0.25f}, 1);
            HostTensor m = (HostTensor) masks.call(k, "allocateAboveOutput", HOST2, x, t)) {
          assertThat(m.dtype()).isEqualTo(dev.kernelgen.runtime.DataType.BOOL);
          masks.call(k, "above", HOST3, x, t, m);
          assertThat(m.toBooleanArray()).as(device.name() + " n=" + n).containsExactly(above);
          try (HostTensor y = (HostTensor) masks.call(k, "allocateKeepOutput", HOST2, x, m)) {
            masks.call(k, "keep", HOST3, x, m, y);
            assertThat(y.toFloatArray()).as(device.name() + " n=" + n).containsExactly(kept);
          }
        }
      }
    }
  }

  @Test
  void runOnJava() throws Throwable {
    runOn(Devices.java());
    masksOn(Devices.java());
  }

  @Test
  void runOnC() throws Throwable {
    Optional<? extends Device> cpu = Devices.cpu();
    assumeTrue(cpu.isPresent(), "no C library loads here: " + Devices.probe(Target.C).detail());
    runOn(cpu.get());
    masksOn(cpu.get());
  }

  @Test
  void runOnOpenCl() throws Throwable {
    Optional<? extends Device> cl = Devices.openCl();
    assumeTrue(
        cl.isPresent(),
        "no OpenCL device found ("
            + Devices.probe(Target.OPENCL).detail()
            + "); install pocl-opencl-icd and ocl-icd-opencl-dev");
    runOn(cl.get());
    masksOn(cl.get());
  }

  @Test
  void runOnCuda() throws Throwable {
    Device gpu = CudaTests.deviceOrSkip();
    runOn(gpu);
    masksOn(gpu);
  }
}
