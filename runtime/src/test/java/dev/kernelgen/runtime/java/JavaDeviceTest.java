package dev.kernelgen.runtime.java;

import static dev.kernelgen.runtime.KernelSignature.ParamKind.INT32;
import static dev.kernelgen.runtime.KernelSignature.ParamKind.POINTER;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.kernelgen.runtime.DataType;
import dev.kernelgen.runtime.DeviceBuffer;
import dev.kernelgen.runtime.DeviceException;
import dev.kernelgen.runtime.Devices;
import dev.kernelgen.runtime.HostTensor;
import dev.kernelgen.runtime.KernelBinary;
import dev.kernelgen.runtime.KernelFunction;
import dev.kernelgen.runtime.KernelModule;
import dev.kernelgen.runtime.KernelSignature;
import dev.kernelgen.runtime.LaunchConfig;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.concurrent.ForkJoinWorkerThread;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;

class JavaDeviceTest {
  /** What a generated Java kernel class looks like to the runtime. */
  public static final class Kernels {
    public static void addOne(MemorySegment x, int n) {
      for (int i = 0; i < n; i++) {
        x.setAtIndex(ValueLayout.JAVA_FLOAT, i, x.getAtIndex(ValueLayout.JAVA_FLOAT, i) + 1);
      }
    }

    /** Writes 1 where the parallel loop's iteration ran on a worker of the device's pool. */
    public static void onDevicePool(MemorySegment out, int n) {
      IntStream.range(0, n)
          .parallel()
          .forEach(i -> out.setAtIndex(ValueLayout.JAVA_INT, i, onPool() ? 1 : 0));
    }

    /** Writes the id of the thread that runs it. */
    public static void threadId(MemorySegment out) {
      out.setAtIndex(ValueLayout.JAVA_LONG, 0, Thread.currentThread().threadId());
    }

    public static void fails(MemorySegment x) {
      throw new IllegalStateException("kernel failed on purpose");
    }

    private static boolean onPool() {
      return Thread.currentThread() instanceof ForkJoinWorkerThread w
          && w.getPool() == JavaDevice.pool();
    }

    public static void fill(HostTensor t, long value) {
      for (long i = 0; i < t.elementCount(); i++) {
        t.setLong(i, value);
      }
    }
  }

  private final JavaDevice java = Devices.java();

  @Test
  void callsStaticMethodsWithSegmentsAndTensors() {
    try (KernelModule m = java.loadModule(new KernelBinary.Java(Kernels.class));
        HostTensor x = HostTensor.of(new float[] {1, 2, 3});
        DeviceBuffer b = java.upload(x);
        HostTensor l = HostTensor.zeros(DataType.INT64, 2)) {
      KernelFunction add = m.function("addOne", KernelSignature.of(POINTER, INT32));
      add.launch(LaunchConfig.HOST, x, 3);
      add.launch(LaunchConfig.HOST, b, 3);
      assertThat(x.toFloatArray()).containsExactly(2, 3, 4);
      b.copyToHost(x);
      assertThat(x.toFloatArray()).containsExactly(2, 3, 4);
      m.function("fill", KernelSignature.of(POINTER, KernelSignature.ParamKind.INT64))
          .launch(LaunchConfig.HOST, l, 7);
      assertThat(l.toLongArray()).containsExactly(7, 7);
    }
  }

  @Test
  void missingMethodIsReported() {
    try (KernelModule m = java.loadModule(new KernelBinary.Java(Kernels.class))) {
      assertThatThrownBy(() -> m.function("addOne", KernelSignature.of(POINTER)))
          .isInstanceOf(DeviceException.class)
          .hasMessageContaining("no public static method addOne with 1 parameters");
    }
  }

  /**
   * A kernel bound once is not handed out again under another signature (as the CUDA, OpenCL and C
   * modules' function caches refuse it): the second lookup fails naming both signatures.
   */
  @Test
  void aSecondLookupWithAnotherSignatureIsRefusedNamingBoth() {
    KernelSignature bound = KernelSignature.of(POINTER, INT32);
    KernelSignature other = KernelSignature.of(POINTER, KernelSignature.ParamKind.INT64);
    try (KernelModule m = java.loadModule(new KernelBinary.Java(Kernels.class));
        HostTensor x = HostTensor.of(new float[] {1, 2})) {
      KernelFunction add = m.function("addOne", bound);
      assertThatThrownBy(() -> m.function("addOne", other))
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessage("Java kernel addOne was bound with " + bound + ", not " + other);
      assertThat(m.function("addOne", bound)).isSameAs(add);
      add.launch(LaunchConfig.HOST, x, 2);
      assertThat(x.toFloatArray()).containsExactly(2, 3);
    }
  }

  /**
   * Parallel loops of every launch run on the device's one pool (made once, a worker per
   * processor), not on the common pool or on threads made per call.
   */
  @Test
  void parallelLoopsRunOnTheDevicePoolEveryLaunch() {
    try (KernelModule m = java.loadModule(new KernelBinary.Java(Kernels.class));
        HostTensor out = HostTensor.zeros(DataType.INT32, 1000)) {
      KernelFunction f = m.function("onDevicePool", KernelSignature.of(POINTER, INT32));
      for (int launch = 0; launch < 3; launch++) {
        f.launch(LaunchConfig.HOST, out, 1000);
        assertThat(out.toIntArray()).as("launch %d", launch).containsOnly(1);
      }
    }
    assertThat(JavaDevice.pool())
        .isSameAs(JavaDevice.pool())
        .extracting(p -> p.getParallelism())
        .isEqualTo(Runtime.getRuntime().availableProcessors());
  }

  /** What a kernel throws reaches the caller as itself, not wrapped by the pool. */
  @Test
  void kernelExceptionReachesTheCallerUnwrapped() {
    try (KernelModule m = java.loadModule(new KernelBinary.Java(Kernels.class));
        HostTensor x = HostTensor.zeros(DataType.FLOAT32, 1)) {
      KernelFunction f = m.function("fails", KernelSignature.of(POINTER));
      assertThatThrownBy(() -> f.launch(LaunchConfig.HOST, x))
          .isExactlyInstanceOf(IllegalStateException.class)
          .hasMessage("kernel failed on purpose");
    }
  }

  /** Memory confined to the calling thread is used on that thread: the pool could not read it. */
  @Test
  void confinedMemoryIsUsedOnTheCallingThread() {
    try (KernelModule m = java.loadModule(new KernelBinary.Java(Kernels.class));
        Arena arena = Arena.ofConfined()) {
      MemorySegment id = arena.allocate(ValueLayout.JAVA_LONG);
      m.function("threadId", KernelSignature.of(POINTER))
          .launch(LaunchConfig.HOST, HostTensor.wrap(DataType.INT64, id, 1));
      assertThat(id.get(ValueLayout.JAVA_LONG, 0)).isEqualTo(Thread.currentThread().threadId());
    }
  }
}
