package com.example.kernels;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;

import dev.kernelgen.runtime.Device;
import dev.kernelgen.runtime.Devices;
import dev.kernelgen.runtime.HostTensor;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class LayerKernelsTest {
  static List<Device> devices() {
    List<Device> out = new ArrayList<>();
    out.add(Devices.java());
    Devices.cpu().ifPresent(out::add);
    return out;
  }

  @Test
  void denseBiasOnEveryHostDevice() {
    int n = 3, in = 16, outs = 5;
    float[] x = new float[n * in], w = new float[outs * in], bias = new float[outs];
    for (int i = 0; i < x.length; i++) {
      x[i] = (i % 7) * 0.5f - 1;
    }
    for (int i = 0; i < w.length; i++) {
      w[i] = (i % 5) * 0.75f - 1.5f;
    }
    for (int j = 0; j < outs; j++) {
      bias[j] = j - 2;
    }
    float[] want = new float[n * outs];
    for (int i = 0; i < n; i++) {
      for (int j = 0; j < outs; j++) {
        float s = 0;
        for (int c = 0; c < in; c++) {
          s += x[i * in + c] * w[j * in + c];
        }
        want[i * outs + j] = Math.min(Math.max(s, 0), 6) + bias[j];
      }
    }
    for (Device d : devices()) {
      try (LayerKernels k = LayerKernels.load(d);
          HostTensor tx = HostTensor.of(x, n, in);
          HostTensor tw = HostTensor.of(w, outs, in);
          HostTensor tb = HostTensor.of(bias);
          HostTensor out = k.allocateDenseBiasOutput(tx, tw, tb)) {
        k.denseBias(tx, tw, tb, out);
        assertArrayEquals(want, out.toFloatArray(), 1e-5f, d.name());
      }
    }
  }

  @Test
  void rowSumOnEveryHostDevice() {
    for (Device d : devices()) {
      for (int cols : new int[] {8, 3}) { // 8 runs the specialized kernel
        float[] x = new float[2 * cols];
        float[] want = new float[2];
        for (int i = 0; i < x.length; i++) {
          x[i] = i;
          want[i / cols] += i;
        }
        try (LayerKernels k = LayerKernels.load(d);
            HostTensor tx = HostTensor.of(x, 2, cols);
            HostTensor s = k.allocateRowSumOutput(tx)) {
          k.rowSum(tx, s);
          assertArrayEquals(want, s.toFloatArray(), d.name());
        }
      }
    }
  }
}
