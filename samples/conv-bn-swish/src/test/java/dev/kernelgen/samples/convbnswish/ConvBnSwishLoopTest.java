package dev.kernelgen.samples.convbnswish;

import dev.kernelgen.eval.NDArray;
import dev.kernelgen.samples.convbnswish.ConvBnSwishLoop.Dims;
import dev.kernelgen.te.DType;
import org.junit.jupiter.api.Test;

/**
 * The plain Java loop, which checks the kernels at shapes too large for the interpreter, agrees
 * with the interpreter's evaluation of the spec on ragged shapes.
 */
class ConvBnSwishLoopTest {
  @Test
  void theJavaLoopAgreesWithTheInterpreterOnRaggedShapes() {
    for (Dims d :
        new Dims[] {new Dims(2, 3, 7, 5, 4), new Dims(1, 1, 1, 1, 1), new Dims(3, 5, 2, 9, 6)}) {
      Inputs in = Inputs.random(d, d.hashCode());
      NDArray expected = in.interpreted();
      NDArray.assertClose(
          expected, NDArray.of(DType.FLOAT32, d.output(), toDoubles(in.loop())), 1e-5, 1e-5);
    }
  }

  static double[] toDoubles(float[] a) {
    double[] d = new double[a.length];
    for (int i = 0; i < a.length; i++) {
      d[i] = a[i];
    }
    return d;
  }
}
