package dev.kernelgen.runtime.opencl;

import static dev.kernelgen.runtime.KernelSignature.ParamKind.FLOAT32;
import static dev.kernelgen.runtime.KernelSignature.ParamKind.INT32;
import static dev.kernelgen.runtime.KernelSignature.ParamKind.POINTER;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.kernelgen.annotations.Target;
import dev.kernelgen.runtime.DataType;
import dev.kernelgen.runtime.DeviceBuffer;
import dev.kernelgen.runtime.DeviceException;
import dev.kernelgen.runtime.DeviceTimer;
import dev.kernelgen.runtime.Devices;
import dev.kernelgen.runtime.HostTensor;
import dev.kernelgen.runtime.KernelBinary;
import dev.kernelgen.runtime.KernelFunction;
import dev.kernelgen.runtime.KernelModule;
import dev.kernelgen.runtime.KernelSignature;
import dev.kernelgen.runtime.LaunchConfig;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** Runs on whatever OpenCL device the machine has; PoCL on the CPU machine. */
class OpenClDeviceTest {
  private static final String SOURCE =
      """
      __kernel void block_sum(__global const float* in, __global float* out, int n) {
        __local float tile[64];
        int lid = get_local_id(0);
        int gid = get_global_id(0);
        tile[lid] = gid < n ? in[gid] : 0.0f;
        barrier(CLK_LOCAL_MEM_FENCE);
        for (int s = get_local_size(0) / 2; s > 0; s >>= 1) {
          if (lid < s) tile[lid] += tile[lid + s];
          barrier(CLK_LOCAL_MEM_FENCE);
        }
        if (lid == 0) out[get_group_id(0)] = tile[0];
      }
      __kernel void scale(__global float* x, float a, int n) {
        int i = get_global_id(0);
        if (i < n) x[i] *= a;
      }
      """;

  static OpenClDevice cl;

  @BeforeAll
  static void device() {
    assumeTrue(
        Devices.openCl().isPresent(),
        () -> "no OpenCL device found: " + Devices.probe(Target.OPENCL).detail());
    cl = Devices.openCl().get();
  }

  @Test
  void reductionWithLocalMemoryAndBarriers() {
    int n = 1000;
    int block = 64;
    int groups = (n + block - 1) / block;
    float[] data = new float[n];
    for (int i = 0; i < n; i++) {
      data[i] = (i % 13) - 6 + 0.25f;
    }
    try (KernelModule m = cl.loadModule(new KernelBinary.OpenCl("sums", SOURCE));
        HostTensor in = HostTensor.of(data);
        HostTensor out = HostTensor.zeros(DataType.FLOAT32, groups);
        DeviceBuffer dIn = cl.upload(in);
        DeviceBuffer dOut = cl.allocate(DataType.FLOAT32, groups)) {
      m.function("block_sum", KernelSignature.of(POINTER, POINTER, INT32))
          .launch(LaunchConfig.of(groups, block), dIn, dOut, n);
      dOut.copyToHost(out);
      for (int g = 0; g < groups; g++) {
        float expected = 0;
        for (int i = g * block; i < Math.min(n, (g + 1) * block); i++) {
          expected += data[i];
        }
        assertThat(out.getFloat(g)).as("group %d", g).isCloseTo(expected, within(1e-3f));
      }
    }
  }

  @Test
  void kernelWorkGroupSizeLimitsTheBlock() {
    String src = "__kernel void k(__global int* x) { x[get_global_id(0)] = 3; }";
    try (KernelModule m = cl.loadModule(new KernelBinary.OpenCl("wg", src))) {
      KernelFunction f = m.function("k", KernelSignature.of(POINTER));
      int max = f.maxThreadsPerBlock().getAsInt();
      assertThat(max).isPositive();
      assertThat(f.cannotLaunch(LaunchConfig.of(1, max))).isNull();
      assertThat(f.cannotLaunch(LaunchConfig.of(1, max + 1)))
          .contains("kernel k can launch at most " + max + " threads per block");
    }
  }

  @Test
  void aSyntaxErrorGivesTheBuildLog() {
    String bad = "__kernel void broken(__global float* x) { x[0] = 1.0f +; }";
    assertThatThrownBy(() -> cl.loadModule(new KernelBinary.OpenCl("broken", bad)))
        .isInstanceOf(DeviceException.class)
        .hasMessageContaining("OpenCL module broken did not build")
        .hasMessageContaining("CL_BUILD_PROGRAM_FAILURE")
        .hasMessageContaining("build log")
        .hasMessageContaining("error");
  }

  @Test
  void programsAreCachedPerSource() {
    String src = "__kernel void k(__global int* x) { x[get_global_id(0)] = 3; }";
    try (KernelModule a = cl.loadModule(new KernelBinary.OpenCl("a", src))) {
      int before = cl.cachedProgramCount();
      try (KernelModule b = cl.loadModule(new KernelBinary.OpenCl("b", src))) {
        assertThat(cl.cachedProgramCount()).isEqualTo(before);
      }
      try (KernelModule c = cl.loadModule(new KernelBinary.OpenCl("c", src + "\n"))) {
        // One more, unless the cache is full (the other tests on this shared device may have
        // filled it), when the least recently used one makes room.
        int withC = Math.min(before + 1, OpenClDevice.CACHED_PROGRAMS);
        assertThat(cl.cachedProgramCount()).isEqualTo(withC);
        try (KernelModule again = cl.loadModule(new KernelBinary.OpenCl("c2", src + "\n"))) {
          assertThat(cl.cachedProgramCount()).isEqualTo(withC);
        }
      }
    }
  }

  /**
   * A tuning session loads a new source per candidate: the cache keeps at most {@link
   * OpenClDevice#CACHED_PROGRAMS} programs (it kept every one before), and a module whose program
   * left the cache still runs, since it holds its own reference.
   */
  @Test
  void theProgramCacheIsBoundedAndAnEvictedProgramsModuleStillRuns() {
    int n = 100;
    try (KernelModule first = cl.loadModule(new KernelBinary.OpenCl("first", SOURCE + "// 0\n"));
        HostTensor x = HostTensor.zeros(DataType.FLOAT32, n);
        DeviceBuffer d = cl.upload(x)) {
      for (int i = 1; i <= OpenClDevice.CACHED_PROGRAMS + 8; i++) {
        String src = "__kernel void k(__global int* x) { x[get_global_id(0)] = " + i + "; }";
        try (KernelModule m = cl.loadModule(new KernelBinary.OpenCl("m" + i, src))) {
          assertThat(m.function("k", KernelSignature.of(POINTER))).isNotNull();
        }
        assertThat(cl.cachedProgramCount()).isLessThanOrEqualTo(OpenClDevice.CACHED_PROGRAMS);
      }
      for (int i = 0; i < n; i++) {
        x.setFloat(i, 1.5f);
      }
      d.copyFromHost(x);
      first
          .function("scale", KernelSignature.of(POINTER, FLOAT32, INT32))
          .launch(LaunchConfig.of(2, 64), d, 2f, n);
      d.copyToHost(x);
      assertThat(x.getFloat(0)).isEqualTo(3f);
      assertThat(x.getFloat(n - 1)).isEqualTo(3f);
    }
  }

  @Test
  void missingKernelAndWrongBufferAreReported() {
    try (KernelModule m = cl.loadModule(new KernelBinary.OpenCl("sums", SOURCE));
        HostTensor host = HostTensor.zeros(DataType.FLOAT32, 4)) {
      assertThatThrownBy(() -> m.function("nope", KernelSignature.of(POINTER)))
          .isInstanceOf(DeviceException.class)
          .hasMessageContaining("has no kernel nope")
          .hasMessageContaining("CL_INVALID_KERNEL_NAME");
      KernelFunction f = m.function("scale", KernelSignature.of(POINTER, FLOAT32, INT32));
      assertThatThrownBy(() -> f.launch(LaunchConfig.of(1, 4), host, 2f, 4))
          .hasMessageContaining("kernel scale")
          .hasMessageContaining("not a buffer on this device");
    }
  }

  @Test
  void timerReportsProfiledKernelTime() {
    int n = 1 << 16;
    try (KernelModule m = cl.loadModule(new KernelBinary.OpenCl("sums", SOURCE));
        HostTensor x = HostTensor.zeros(DataType.FLOAT32, n);
        DeviceBuffer d = cl.upload(x);
        DeviceTimer t = cl.timer()) {
      for (int i = 0; i < n; i++) {
        x.setFloat(i, 1f);
      }
      d.copyFromHost(x);
      KernelFunction f = m.function("scale", KernelSignature.of(POINTER, FLOAT32, INT32));
      t.start();
      for (int i = 0; i < 3; i++) {
        f.launch(LaunchConfig.of(n / 64, 64), d, 2f, n);
      }
      t.stop();
      assertThat(t.elapsedMillis()).isPositive();
      d.copyToHost(x);
      assertThat(x.getFloat(n - 1)).isEqualTo(8f);
    }
  }

  @Test
  void concurrentLaunchesFromSeveralThreads() throws Exception {
    int n = 256;
    try (KernelModule m = cl.loadModule(new KernelBinary.OpenCl("sums", SOURCE))) {
      KernelFunction f = m.function("scale", KernelSignature.of(POINTER, FLOAT32, INT32));
      Thread[] threads = new Thread[4];
      float[] results = new float[threads.length];
      for (int t = 0; t < threads.length; t++) {
        int id = t;
        threads[t] =
            new Thread(
                () -> {
                  try (HostTensor x = HostTensor.zeros(DataType.FLOAT32, n)) {
                    for (int i = 0; i < n; i++) {
                      x.setFloat(i, 1f);
                    }
                    try (DeviceBuffer d = cl.upload(x)) {
                      for (int k = 0; k < 20; k++) {
                        f.launch(LaunchConfig.of(n / 64, 64), d, (float) (id + 1) / (k + 1), n);
                      }
                      d.copyToHost(x);
                    }
                    results[id] = x.getFloat(n - 1);
                  }
                });
        threads[t].start();
      }
      for (Thread t : threads) {
        t.join();
      }
      for (int t = 0; t < threads.length; t++) {
        double expected = 1;
        for (int k = 0; k < 20; k++) {
          expected *= (float) (t + 1) / (k + 1);
        }
        assertThat((double) results[t])
            .isCloseTo(expected, org.assertj.core.data.Percentage.withPercentage(1e-3));
      }
    }
  }

  private static org.assertj.core.data.Offset<Float> within(float eps) {
    return org.assertj.core.data.Offset.offset(eps);
  }
}
