package com.example.attn;

import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.kernelgen.runtime.Device;
import dev.kernelgen.runtime.Devices;
import dev.kernelgen.runtime.HostTensor;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

class AttentionKernelsTest {
  static final int D = 64;

  static List<Device> devices() {
    List<Device> out = new ArrayList<>();
    out.add(Devices.java());
    Devices.cpu().ifPresent(out::add);
    Devices.openCl().ifPresent(out::add);
    Devices.cuda().ifPresent(out::add);
    return out;
  }

  /** The plain loops, in double. */
  static double[] reference(float[] q, float[] k, float[] v, int n) {
    double[] out = new double[n * D];
    for (int i = 0; i < n; i++) {
      double[] s = new double[n];
      double max = Double.NEGATIVE_INFINITY;
      for (int j = 0; j < n; j++) {
        double dot = 0;
        for (int c = 0; c < D; c++) {
          dot += (double) q[i * D + c] * k[j * D + c];
        }
        s[j] = dot / Math.sqrt(D);
        max = Math.max(max, s[j]);
      }
      double sum = 0;
      for (int j = 0; j < n; j++) {
        s[j] = Math.exp(s[j] - max);
        sum += s[j];
      }
      for (int j = 0; j < n; j++) {
        for (int c = 0; c < D; c++) {
          out[i * D + c] += s[j] / sum * v[j * D + c];
        }
      }
    }
    return out;
  }

  static float[] random(Random r, int n) {
    float[] a = new float[n];
    for (int i = 0; i < n; i++) {
      a[i] = (float) r.nextGaussian();
    }
    return a;
  }

  @Test
  void attentionOnEveryDeviceAtTheTunedAndARaggedLength() {
    Random r = new Random(1);
    for (int n : new int[] {256, 77}) {
      float[] q = random(r, n * D), k = random(r, n * D), v = random(r, n * D);
      double[] want = reference(q, k, v, n);
      for (Device d : devices()) {
        try (AttentionKernels kern = AttentionKernels.load(d);
            HostTensor tq = HostTensor.of(q, n, D);
            HostTensor tk = HostTensor.of(k, n, D);
            HostTensor tv = HostTensor.of(v, n, D);
            HostTensor out = kern.allocateAttentionOutput(tq, tk, tv)) {
          kern.attention(tq, tk, tv, out);
          float[] got = out.toFloatArray();
          double worst = 0;
          for (int i = 0; i < got.length; i++) {
            worst = Math.max(worst, Math.abs(got[i] - want[i]) / (1e-3 + Math.abs(want[i])));
          }
          System.out.printf("attention seq=%d on %s: max relative error %.2e%n", n, d.name(), worst);
          assertTrue(worst < 1e-3, d.name() + " seq=" + n + ": " + worst);
        }
      }
    }
  }
}
