package dev.kernelgen.runtime;

import static dev.kernelgen.runtime.KernelSignature.ParamKind.FLOAT32;
import static dev.kernelgen.runtime.KernelSignature.ParamKind.INT32;
import static dev.kernelgen.runtime.KernelSignature.ParamKind.POINTER;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.kernelgen.annotations.Target;
import dev.kernelgen.runtime.cpu.CpuDevice;
import dev.kernelgen.runtime.cpu.NativeLibraryCache;
import dev.kernelgen.runtime.cuda.CudaDevice;
import dev.kernelgen.runtime.java.JavaDevice;
import dev.kernelgen.runtime.opencl.OpenClDevice;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.file.Path;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Use after close is an {@link IllegalStateException} naming what was closed, on every backend;
 * closing waits for the launches in flight.
 */
class LifecycleTest {
  /** Java kernels; {@code waitFor} holds a launch in flight until the test lets it go. */
  public static final class Kernels {
    static volatile CountDownLatch entered;
    static volatile CountDownLatch release;

    public static void addOne(MemorySegment x, int n) {
      for (int i = 0; i < n; i++) {
        x.setAtIndex(ValueLayout.JAVA_FLOAT, i, x.getAtIndex(ValueLayout.JAVA_FLOAT, i) + 1);
      }
    }

    public static void waitFor(MemorySegment x, int n) throws InterruptedException {
      entered.countDown();
      release.await(30, TimeUnit.SECONDS);
      addOne(x, n);
    }
  }

  @TempDir static Path dir;

  @Test
  void javaModuleFunctionBufferAndDeviceAfterCloseThrow() {
    JavaDevice java = JavaDevice.create();
    KernelModule m = java.loadModule(new KernelBinary.Java(Kernels.class));
    KernelSignature sig = KernelSignature.of(POINTER, INT32);
    KernelFunction f = m.function("addOne", sig);
    try (HostTensor x = HostTensor.of(new float[] {1, 2})) {
      DeviceBuffer b = java.upload(x);
      m.close();
      assertThatThrownBy(() -> f.launch(LaunchConfig.HOST, x, 2))
          .isInstanceOf(IllegalStateException.class)
          .hasMessageStartingWith("Java module")
          .hasMessageEndingWith("was closed");
      assertThatThrownBy(() -> m.function("addOne", sig))
          .isInstanceOf(IllegalStateException.class)
          .hasMessageStartingWith("Java module");
      assertThat(x.toFloatArray()).containsExactly(1, 2);
      java.close();
      assertThatThrownBy(() -> b.copyToHost(x))
          .isInstanceOf(IllegalStateException.class)
          .hasMessage(java.name() + " was closed");
      assertThatThrownBy(() -> java.allocate(DataType.FLOAT32, 1))
          .isInstanceOf(IllegalStateException.class)
          .hasMessage(java.name() + " was closed");
      assertThatThrownBy(() -> java.loadModule(new KernelBinary.Java(Kernels.class)))
          .isInstanceOf(IllegalStateException.class);
      b.close();
    }
    // The process-wide device is shared: closing it leaves it open for its other users.
    Devices.java().close();
    Devices.java().allocate(DataType.FLOAT32, 1).close();
  }

  @Test
  void cModuleAndDeviceAfterCloseThrow() throws Exception {
    byte[] lib =
        CCompiler.compile(
            dir, "void scale(float* x, float a, int n) { for (int i = 0; i < n; i++) x[i] *= a; }");
    CpuDevice cpu = CpuDevice.create(new NativeLibraryCache(dir.resolve("cache")));
    KernelModule m = cpu.loadModule(new KernelBinary.C("scale", lib));
    KernelFunction f = m.function("scale", KernelSignature.of(POINTER, FLOAT32, INT32));
    try (HostTensor x = HostTensor.of(new float[] {1, 2})) {
      f.launch(LaunchConfig.HOST, x, 2f, 2);
      m.close();
      assertThatThrownBy(() -> f.launch(LaunchConfig.HOST, x, 2f, 2))
          .isInstanceOf(IllegalStateException.class)
          .hasMessage("C module scale on " + cpu.name() + " was closed");
      assertThat(x.toFloatArray()).containsExactly(2, 4);
      KernelModule m2 = cpu.loadModule(new KernelBinary.C("scale", lib));
      KernelFunction f2 = m2.function("scale", KernelSignature.of(POINTER, FLOAT32, INT32));
      cpu.close();
      assertThatThrownBy(() -> f2.launch(LaunchConfig.HOST, x, 2f, 2))
          .isInstanceOf(IllegalStateException.class)
          .hasMessage(cpu.name() + " was closed");
      assertThatThrownBy(() -> cpu.loadModule(new KernelBinary.C("scale", lib)))
          .isInstanceOf(IllegalStateException.class)
          .hasMessage(cpu.name() + " was closed");
      assertThat(x.toFloatArray()).containsExactly(2, 4);
    }
  }

  @Test
  void openClModuleAndDeviceAfterCloseThrow() {
    assumeTrue(
        Devices.openCl().isPresent(),
        () -> "no OpenCL device: " + Devices.probe(Target.OPENCL).detail());
    OpenClDevice cl = OpenClDevice.open(Devices.openCl().get().deviceName()).orElseThrow();
    KernelModule m =
        cl.loadModule(
            new KernelBinary.OpenCl(
                "scale",
                "__kernel void scale(__global float* x, float a, int n) {"
                    + " int i = get_global_id(0); if (i < n) x[i] *= a; }"));
    KernelFunction f = m.function("scale", KernelSignature.of(POINTER, FLOAT32, INT32));
    LaunchConfig one = new LaunchConfig(new int[] {1, 1, 1}, new int[] {2, 1, 1}, 0);
    try (HostTensor x = HostTensor.of(new float[] {1, 2})) {
      DeviceBuffer b = cl.upload(x);
      f.launch(one, b, 3f, 2);
      m.close();
      assertThatThrownBy(() -> f.launch(one, b, 3f, 2))
          .isInstanceOf(IllegalStateException.class)
          .hasMessage("OpenCL module scale on " + cl.name() + " was closed");
      b.copyToHost(x);
      assertThat(x.toFloatArray()).containsExactly(3, 6);
      cl.close();
      assertThatThrownBy(() -> b.copyToHost(x))
          .isInstanceOf(IllegalStateException.class)
          .hasMessage(cl.name() + " was closed");
      assertThatThrownBy(cl::synchronize)
          .isInstanceOf(IllegalStateException.class)
          .hasMessage(cl.name() + " was closed");
      b.close(); // after the device: nothing left to release, no error
    }
  }

  @Test
  void cudaModuleAndDeviceAfterCloseThrow() {
    assumeTrue(
        Devices.cuda().isPresent(),
        () -> "no CUDA device, skipped: " + Devices.probe(Target.CUDA).detail());
    CudaDevice cuda = CudaDevice.open(Devices.cuda().get().ordinal());
    try (HostTensor x = HostTensor.of(new float[] {1, 2})) {
      DeviceBuffer b = cuda.upload(x);
      cuda.close();
      assertThatThrownBy(() -> b.copyToHost(x))
          .isInstanceOf(IllegalStateException.class)
          .hasMessage(cuda.name() + " was closed");
      assertThatThrownBy(() -> cuda.allocate(DataType.FLOAT32, 1))
          .isInstanceOf(IllegalStateException.class)
          .hasMessage(cuda.name() + " was closed");
      b.close();
    }
  }

  @Test
  void aClosedHostTensorIsRejected() {
    HostTensor x = HostTensor.of(new float[] {1, 2});
    x.close();
    assertThatThrownBy(x::segment)
        .isInstanceOf(IllegalStateException.class)
        .hasMessage("HostTensor[FLOAT32 [2]] was closed");
    assertThatThrownBy(() -> x.getFloat(0)).isInstanceOf(IllegalStateException.class);
    // A GPU launcher's first step with a host input is its upload.
    assumeTrue(Devices.openCl().isPresent(), "no OpenCL device for the upload");
    assertThatThrownBy(() -> Devices.openCl().get().upload(x))
        .isInstanceOf(IllegalStateException.class)
        .hasMessage("HostTensor[FLOAT32 [2]] was closed");
  }

  @Test
  void closeWaitsForTheLaunchInFlightAndLaterLaunchesFail() throws Exception {
    JavaDevice java = JavaDevice.create();
    KernelModule m = java.loadModule(new KernelBinary.Java(Kernels.class));
    KernelFunction f = m.function("waitFor", KernelSignature.of(POINTER, INT32));
    Kernels.entered = new CountDownLatch(1);
    Kernels.release = new CountDownLatch(1);
    try (HostTensor x = HostTensor.of(new float[] {1})) {
      CompletableFuture<Void> launch =
          CompletableFuture.runAsync(() -> f.launch(LaunchConfig.HOST, x, 1));
      assertThat(Kernels.entered.await(10, TimeUnit.SECONDS)).isTrue();
      CompletableFuture<Void> close = CompletableFuture.runAsync(java::close);
      Thread.sleep(200);
      assertThat(close).isNotDone();
      Kernels.release.countDown();
      close.get(10, TimeUnit.SECONDS);
      launch.get(10, TimeUnit.SECONDS);
      assertThat(x.toFloatArray()).containsExactly(2);
      assertThatThrownBy(() -> f.launch(LaunchConfig.HOST, x, 1))
          .isInstanceOf(IllegalStateException.class)
          .hasMessage(java.name() + " was closed");
    }
  }

  @Test
  void closingFromInsideOwnUseIsRefusedRatherThanDeadlocking() {
    Lifecycle life = new Lifecycle("thing");
    try (Lifecycle.Use u = life.enter()) {
      assertThatThrownBy(life::close)
          .isInstanceOf(IllegalStateException.class)
          .hasMessageContaining("cannot close thing from inside a use");
    }
    assertThat(life.close()).isTrue();
    assertThat(life.close()).isFalse();
    assertThatThrownBy(life::enter).hasMessage("thing was closed");
  }

  @Test
  void closeIsNotStarvedByThreadsThatKeepUsingIt() throws Exception {
    // A new user's launcher: four threads launching in a loop, the main thread closing it. The
    // uses overlapped so that one was always in flight, and a new one took the read lock ahead of
    // the waiting close (a barging tryLock): close() had not returned after 60 s.
    Lifecycle life = new Lifecycle("launcher L");
    java.util.concurrent.atomic.AtomicBoolean stop =
        new java.util.concurrent.atomic.AtomicBoolean();
    java.util.concurrent.atomic.AtomicLong uses = new java.util.concurrent.atomic.AtomicLong();
    java.util.List<Thread> threads = new java.util.ArrayList<>();
    for (int t = 0; t < 4; t++) {
      Thread th =
          Thread.ofPlatform()
              .start(
                  () -> {
                    while (!stop.get()) {
                      try (Lifecycle.Use u = life.enter()) {
                        uses.incrementAndGet();
                        long until = System.nanoTime() + 200_000; // a launch of 0.2 ms
                        while (System.nanoTime() < until) {
                          Thread.onSpinWait();
                        }
                      } catch (IllegalStateException closed) {
                        return;
                      }
                    }
                  });
      threads.add(th);
    }
    while (uses.get() < 100) {
      Thread.onSpinWait();
    }
    CompletableFuture<Boolean> closing = CompletableFuture.supplyAsync(life::close);
    try {
      assertThat(closing.get(10, TimeUnit.SECONDS)).isTrue();
    } finally {
      stop.set(true);
      for (Thread th : threads) {
        th.join(10_000);
      }
    }
    assertThatThrownBy(life::enter)
        .isInstanceOf(IllegalStateException.class)
        .hasMessage("launcher L was closed");
  }
}
