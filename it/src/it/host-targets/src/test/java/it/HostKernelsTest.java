package it;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import dev.kernelgen.runtime.Device;
import dev.kernelgen.runtime.Devices;
import dev.kernelgen.runtime.HostTensor;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class HostKernelsTest {
  static List<Device> devices() {
    List<Device> out = new ArrayList<>();
    out.add(Devices.java());
    Devices.cpu().ifPresent(out::add);
    return out;
  }

  @Test
  void scaleAddOnEveryHostDevice() {
    for (Device d : devices()) {
      for (int n : new int[] {16, 5}) { // 16 runs the specialized kernel
        float[] x = new float[n];
        float[] y = new float[n];
        float[] z = new float[n];
        for (int i = 0; i < n; i++) {
          x[i] = i;
          y[i] = 1 - i;
          z[i] = 2 * x[i] + y[i];
        }
        try (HostKernels k = HostKernels.load(d);
            HostTensor tx = HostTensor.of(x);
            HostTensor ty = HostTensor.of(y);
            HostTensor tz = k.allocateScaleAddOutput(tx, ty)) {
          k.scaleAdd(tx, ty, tz);
          assertArrayEquals(z, tz.toFloatArray(), d.name());
        }
      }
    }
  }

  @Test
  void rowSumOnEveryHostDevice() {
    for (Device d : devices()) {
      try (HostKernels k = HostKernels.load(d);
          HostTensor x = HostTensor.of(new float[] {1, 2, 3, 4, 5, 6}, 2, 3);
          HostTensor s = k.allocateRowSumOutput(x)) {
        k.rowSum(x, s);
        assertArrayEquals(new float[] {6, 15}, s.toFloatArray(), d.name());
      }
    }
  }

  @Test
  void mismatchedShapesNameTheArgument() {
    try (HostKernels k = HostKernels.load(Devices.java());
        HostTensor x = HostTensor.of(new float[4]);
        HostTensor y = HostTensor.of(new float[5]);
        HostTensor z = HostTensor.of(new float[4])) {
      IllegalArgumentException e =
          assertThrows(IllegalArgumentException.class, () -> k.scaleAdd(x, y, z));
      assertEquals("scaleAdd: argument 'y' has 5 at dim 0 (shape [5]), expected n = 4", e.getMessage());
    }
  }
}
