package dev.kernelgen.runtime.launch;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.kernelgen.runtime.DataType;
import dev.kernelgen.runtime.Device;
import dev.kernelgen.runtime.HostTensor;
import dev.kernelgen.runtime.cpu.CpuDevice;
import dev.kernelgen.runtime.java.JavaDevice;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.parallel.Isolated;

/**
 * A copy to the host that fails (the device closed under the call, as the soak test's reopener
 * does) frees the host tensor it allocated: the soak once ended with one host tensor left open.
 */
@Isolated("counts the process's open host tensors")
class DeviceTensorTest {
  @Test
  void toHostOnAClosedDeviceThrowsAndLeavesNoHostTensorOpen() {
    for (Device d : List.of(JavaDevice.create(), CpuDevice.create())) {
      DeviceTensor t = DeviceTensor.allocate(d, DataType.FLOAT32, 3, 5);
      try (HostTensor copy = t.toHost()) {
        assertThat(copy.toFloatArray()).hasSize(15);
      }
      long before = HostTensor.openOwnedTensors();
      d.close();
      assertThatThrownBy(t::toHost)
          .as(d.name())
          .isInstanceOf(IllegalStateException.class)
          .hasMessageContaining("closed");
      assertThat(HostTensor.openOwnedTensors()).as(d.name()).isEqualTo(before);
    }
  }
}
