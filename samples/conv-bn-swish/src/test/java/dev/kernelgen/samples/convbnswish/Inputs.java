package dev.kernelgen.samples.convbnswish;

import dev.kernelgen.eval.NDArray;
import dev.kernelgen.eval.TensorInterpreter;
import dev.kernelgen.runtime.HostTensor;
import dev.kernelgen.samples.convbnswish.ConvBnSwishLoop.Dims;
import dev.kernelgen.spec.OperatorDef;
import dev.kernelgen.te.DType;
import dev.kernelgen.te.Tensor;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;

/**
 * Random inputs of one shape, in the launcher's order (x, weight, gamma, beta, mean, variance):
 * data and filter in [-1, 1), gamma and variance in [0.5, 1.5), so that the variance is positive as
 * a running variance is.
 */
record Inputs(Dims dims, List<float[]> arrays) {
  static Inputs random(Dims d, long seed) {
    Random r = new Random(seed);
    int k = d.k();
    return new Inputs(
        d,
        List.of(
            uniform(r, Math.toIntExact((long) d.n() * d.c() * d.h() * d.w()), -1, 1),
            uniform(r, d.k() * d.c() * 9, -1, 1),
            uniform(r, k, 0.5f, 1.5f),
            uniform(r, k, -1, 1),
            uniform(r, k, -1, 1),
            uniform(r, k, 0.5f, 1.5f)));
  }

  private static float[] uniform(Random r, int count, float lo, float hi) {
    float[] a = new float[count];
    for (int i = 0; i < a.length; i++) {
      a[i] = lo + r.nextFloat() * (hi - lo);
    }
    return a;
  }

  long[] shape(int arg) {
    return switch (arg) {
      case 0 -> dims.input();
      case 1 -> dims.weight();
      default -> new long[] {dims.k()};
    };
  }

  /** The inputs as host tensors, to be closed by the caller. */
  HostTensor[] hostTensors() {
    HostTensor[] t = new HostTensor[arrays.size()];
    for (int i = 0; i < t.length; i++) {
      t[i] = HostTensor.of(arrays.get(i), shape(i));
    }
    return t;
  }

  /** The plain Java loop's output. */
  float[] loop() {
    return ConvBnSwishLoop.run(
        dims,
        arrays.get(0),
        arrays.get(1),
        arrays.get(2),
        arrays.get(3),
        arrays.get(4),
        arrays.get(5));
  }

  /** The oracle: the spec's own compute evaluated by the tensor-expression interpreter. */
  NDArray interpreted() {
    OperatorDef def = ConvBnSwishSpec.convBnSwish();
    Map<Tensor, NDArray> in = new HashMap<>();
    for (int i = 0; i < arrays.size(); i++) {
      NDArray a = NDArray.zeros(DType.FLOAT32, shape(i));
      float[] v = arrays.get(i);
      for (int j = 0; j < v.length; j++) {
        a.setDouble(j, v[j]);
      }
      in.put(def.inputs().get(i), a);
    }
    return TensorInterpreter.evaluate(def.output(), in, Map.of());
  }
}
