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
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import org.junit.jupiter.api.Test;

class JavaDeviceTest {
  /** What a generated Java kernel class looks like to the runtime. */
  public static final class Kernels {
    public static void addOne(MemorySegment x, int n) {
      for (int i = 0; i < n; i++) {
        x.setAtIndex(ValueLayout.JAVA_FLOAT, i, x.getAtIndex(ValueLayout.JAVA_FLOAT, i) + 1);
      }
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
}
