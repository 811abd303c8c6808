package dev.kernelgen.runtime.cuda;

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
import java.util.Map;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Needs a CUDA GPU; skipped elsewhere with the probe's reason. The PTX is written by hand (what
 * nvcc emits for the kernels in the comments) so that the test needs no CUDA toolkit, only the
 * driver, as a user's machine.
 */
class CudaDeviceTest {
  // extern "C" __global__ void scale_add(const float* a, float* out, float s, int n) {
  //   int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) out[i] = a[i] * s + 1.0f; }
  // extern "C" __global__ void add_one(float* x, int n) {
  //   int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) x[i] += 1.0f; }
  static final String PTX =
      """
      .version 7.0
      .target sm_50
      .address_size 64

      .visible .entry scale_add(
        .param .u64 scale_add_param_0,
        .param .u64 scale_add_param_1,
        .param .f32 scale_add_param_2,
        .param .u32 scale_add_param_3
      )
      {
        .reg .pred %p<2>;
        .reg .f32 %f<4>;
        .reg .b32 %r<6>;
        .reg .b64 %rd<8>;
        ld.param.u64 %rd1, [scale_add_param_0];
        ld.param.u64 %rd2, [scale_add_param_1];
        ld.param.f32 %f1, [scale_add_param_2];
        ld.param.u32 %r2, [scale_add_param_3];
        mov.u32 %r3, %ctaid.x;
        mov.u32 %r4, %ntid.x;
        mov.u32 %r5, %tid.x;
        mad.lo.s32 %r1, %r3, %r4, %r5;
        setp.ge.s32 %p1, %r1, %r2;
        @%p1 bra $L__BB0_2;
        cvta.to.global.u64 %rd3, %rd1;
        cvta.to.global.u64 %rd4, %rd2;
        mul.wide.s32 %rd5, %r1, 4;
        add.s64 %rd6, %rd3, %rd5;
        ld.global.f32 %f2, [%rd6];
        fma.rn.f32 %f3, %f2, %f1, 0f3F800000;
        add.s64 %rd7, %rd4, %rd5;
        st.global.f32 [%rd7], %f3;
      $L__BB0_2:
        ret;
      }

      .visible .entry add_one(
        .param .u64 add_one_param_0,
        .param .u32 add_one_param_1
      )
      {
        .reg .pred %p<2>;
        .reg .f32 %f<3>;
        .reg .b32 %r<6>;
        .reg .b64 %rd<5>;
        ld.param.u64 %rd1, [add_one_param_0];
        ld.param.u32 %r2, [add_one_param_1];
        mov.u32 %r3, %ctaid.x;
        mov.u32 %r4, %ntid.x;
        mov.u32 %r5, %tid.x;
        mad.lo.s32 %r1, %r3, %r4, %r5;
        setp.ge.s32 %p1, %r1, %r2;
        @%p1 bra $L__BB1_2;
        cvta.to.global.u64 %rd2, %rd1;
        mul.wide.s32 %rd3, %r1, 4;
        add.s64 %rd4, %rd2, %rd3;
        ld.global.f32 %f1, [%rd4];
        add.f32 %f2, %f1, 0f3F800000;
        st.global.f32 [%rd4], %f2;
      $L__BB1_2:
        ret;
      }
      """;

  static CudaDevice gpu;

  // Per test rather than per class, so that each skip carries the reason into the reports.
  @BeforeEach
  void device() {
    assumeTrue(
        Devices.cuda().isPresent(),
        () -> "no CUDA device found: " + Devices.probe(Target.CUDA).detail());
    gpu = Devices.cuda().get();
  }

  @Test
  void reportsDeviceProperties() {
    System.out.println(
        gpu.name() + ", " + gpu.multiprocessorCount() + " SMs, " + gpu.totalMemoryBytes() + " B");
    assertThat(gpu.name()).startsWith("CUDA " + gpu.ordinal() + ": ");
    assertThat(gpu.smVersion()).isGreaterThanOrEqualTo(50);
    assertThat(gpu.maxThreadsPerBlock()).isGreaterThanOrEqualTo(512);
    assertThat(gpu.sharedMemoryPerBlock()).isGreaterThanOrEqualTo(16 * 1024);
    assertThat(gpu.sharedMemoryPerBlockOptIn()).isGreaterThanOrEqualTo(gpu.sharedMemoryPerBlock());
    assertThat(gpu.warpSize()).isEqualTo(32);
  }

  @Test
  void kernelResourcesLimitTheBlock() {
    try (KernelModule m = gpu.loadModule(KernelBinary.Cuda.ptx("test", PTX));
        KernelModule capped =
            gpu.loadModule(
                KernelBinary.Cuda.ptx("capped", PTX.replace(")\n{", ") .maxntid 64, 1, 1\n{")))) {
      KernelSignature sig = KernelSignature.of(POINTER, POINTER, FLOAT32, INT32);
      KernelFunction f = m.function("scale_add", sig);
      assertThat(f.registersPerThread().getAsInt()).isPositive();
      assertThat(f.maxThreadsPerBlock().getAsInt()).isBetween(1, gpu.maxThreadsPerBlock());
      assertThat(f.cannotLaunch(LaunchConfig.of(1, 128))).isNull();
      // A kernel whose block is capped at 64 threads (as too many registers per thread would).
      KernelFunction c = capped.function("scale_add", sig);
      assertThat(c.maxThreadsPerBlock().getAsInt()).isEqualTo(64);
      assertThat(c.cannotLaunch(LaunchConfig.of(1, 64))).isNull();
      assertThat(c.cannotLaunch(LaunchConfig.of(1, 128)))
          .contains("kernel scale_add uses", "registers per thread", "at most 64 threads", "128");
    }
  }

  @Test
  void loadsPtxLaunchesAndCopiesBack() {
    int n = 1000;
    float[] a = new float[n];
    for (int i = 0; i < n; i++) {
      a[i] = i * 0.5f;
    }
    try (KernelModule m = gpu.loadModule(KernelBinary.Cuda.ptx("test", PTX));
        HostTensor ha = HostTensor.of(a);
        HostTensor hout = HostTensor.zeros(DataType.FLOAT32, n);
        DeviceBuffer da = gpu.upload(ha);
        DeviceBuffer dout = gpu.allocate(DataType.FLOAT32, n)) {
      m.function("scale_add", KernelSignature.of(POINTER, POINTER, FLOAT32, INT32))
          .launch(LaunchConfig.of((n + 127) / 128, 128), da, dout, 3f, n);
      dout.copyToHost(hout);
      for (int i = 0; i < n; i++) {
        assertThat(hout.getFloat(i)).isEqualTo(a[i] * 3f + 1f);
      }
    }
  }

  @Test
  void aCubinThatDoesNotLoadFallsBackToPtx() {
    byte[] junk = {1, 2, 3, 4};
    var binary = new KernelBinary.Cuda("junkcubin", Map.of(gpu.smVersion(), junk), PTX);
    try (KernelModule m = gpu.loadModule(binary)) {
      assertThat(m.function("add_one", KernelSignature.of(POINTER, INT32))).isNotNull();
    }
  }

  @Test
  void noMatchingCubinAndNoPtxIsReported() {
    var binary = new KernelBinary.Cuda("only_sm10", Map.of(10, new byte[] {1}), null);
    assertThatThrownBy(() -> gpu.loadModule(binary))
        .isInstanceOf(DeviceException.class)
        .hasMessageContaining("no cubin for sm_" + gpu.smVersion())
        .hasMessageContaining("sm_10");
  }

  @Test
  void badPtxGivesTheDriverErrorAndLog() {
    String bad = PTX.replace("fma.rn.f32 %f3, %f2, %f1, 0f3F800000;", "fma.rn.f32 %f3, %nope;");
    assertThatThrownBy(() -> gpu.loadModule(KernelBinary.Cuda.ptx("bad", bad)))
        .isInstanceOf(DeviceException.class)
        .hasMessageContaining("CUDA_ERROR_INVALID_PTX")
        .satisfies(e -> System.out.println("JIT error message: " + e.getMessage()));
  }

  @Test
  void launchErrorsNameKernelAndCudaError() {
    try (KernelModule m = gpu.loadModule(KernelBinary.Cuda.ptx("test", PTX));
        DeviceBuffer x = gpu.allocate(DataType.FLOAT32, 4)) {
      KernelFunction f = m.function("add_one", KernelSignature.of(POINTER, INT32));
      assertThatThrownBy(
              () ->
                  f.launch(
                      new LaunchConfig(new int[] {1, 1, 1}, new int[] {64, 1, 1}, 1 << 30), x, 4))
          .isInstanceOf(DeviceException.class)
          .hasMessageContaining("kernel add_one")
          .hasMessageContaining("CUDA_ERROR");
      assertThatThrownBy(() -> m.function("missing", KernelSignature.of(POINTER)))
          .hasMessageContaining("has no kernel missing")
          .hasMessageContaining("CUDA_ERROR_NOT_FOUND");
    }
  }

  @Test
  void graphReplaysCapturedLaunchesAndTimersMeasure() {
    int n = 1 << 20;
    try (KernelModule m = gpu.loadModule(KernelBinary.Cuda.ptx("test", PTX));
        HostTensor h = HostTensor.zeros(DataType.FLOAT32, n);
        DeviceBuffer x = gpu.upload(h);
        DeviceTimer timer = gpu.timer()) {
      KernelFunction f = m.function("add_one", KernelSignature.of(POINTER, INT32));
      LaunchConfig cfg = LaunchConfig.of(n / 256, 256);
      try (CudaGraph graph =
          gpu.captureGraph(
              () -> {
                for (int i = 0; i < 3; i++) {
                  f.launch(cfg, x, n);
                }
              })) {
        x.copyToHost(h);
        assertThat(h.getFloat(0)).as("capturing does not run").isEqualTo(0f);
        timer.start();
        graph.launch();
        graph.launch();
        timer.stop();
        assertThat(timer.elapsedMillis()).isPositive();
      }
      x.copyToHost(h);
      assertThat(h.getFloat(0)).isEqualTo(6f);
      assertThat(h.getFloat(n - 1)).isEqualTo(6f);
    }
  }

  @Test
  void usableFromSeveralThreads() throws Exception {
    try (KernelModule m = gpu.loadModule(KernelBinary.Cuda.ptx("test", PTX))) {
      KernelFunction f = m.function("add_one", KernelSignature.of(POINTER, INT32));
      Thread[] threads = new Thread[4];
      float[] results = new float[threads.length];
      for (int t = 0; t < threads.length; t++) {
        int id = t;
        threads[t] =
            new Thread(
                () -> {
                  try (HostTensor h = HostTensor.zeros(DataType.FLOAT32, 512);
                      DeviceBuffer x = gpu.upload(h)) {
                    for (int k = 0; k < 10 + id; k++) {
                      f.launch(LaunchConfig.of(4, 128), x, 512);
                    }
                    x.copyToHost(h);
                    results[id] = h.getFloat(511);
                  }
                });
        threads[t].start();
      }
      for (Thread t : threads) {
        t.join();
      }
      for (int t = 0; t < threads.length; t++) {
        assertThat(results[t]).isEqualTo(10f + t);
      }
    }
  }

  @Test
  void aLaunchFromAnotherThreadWaitsForTheCaptureInsteadOfJoiningTheGraph() throws Exception {
    int n = 256;
    try (KernelModule m = gpu.loadModule(KernelBinary.Cuda.ptx("test", PTX));
        DeviceBuffer captured = gpu.allocate(DataType.FLOAT32, n);
        DeviceBuffer other = gpu.allocate(DataType.FLOAT32, n);
        HostTensor zeros = HostTensor.zeros(DataType.FLOAT32, n);
        HostTensor h = HostTensor.zeros(DataType.FLOAT32, n)) {
      captured.copyFromHost(zeros);
      other.copyFromHost(zeros);
      KernelFunction f = m.function("add_one", KernelSignature.of(POINTER, INT32));
      LaunchConfig cfg = LaunchConfig.of(1, n);
      java.util.concurrent.CompletableFuture<Void>[] elsewhere =
          new java.util.concurrent.CompletableFuture[1];
      try (CudaGraph graph =
          gpu.captureGraph(
              () -> {
                f.launch(cfg, captured, n);
                elsewhere[0] =
                    java.util.concurrent.CompletableFuture.runAsync(() -> f.launch(cfg, other, n));
                try {
                  Thread.sleep(300);
                } catch (InterruptedException e) {
                  throw new IllegalStateException(e);
                }
                assertThat(elsewhere[0]).as("the other thread waits for the capture").isNotDone();
              })) {
        elsewhere[0].get(30, java.util.concurrent.TimeUnit.SECONDS);
        graph.launch();
        graph.launch();
        other.copyToHost(h);
        assertThat(h.getFloat(0)).as("the other launch ran once, outside the graph").isEqualTo(1f);
        captured.copyToHost(h);
        assertThat(h.getFloat(n - 1)).as("the graph holds one launch").isEqualTo(2f);
      }
    }
  }
}
