package dev.kernelgen.eval;

import static dev.kernelgen.te.TE.FLOAT32;
import static dev.kernelgen.te.TE.FLOAT64;
import static dev.kernelgen.te.TE.INT32;
import static dev.kernelgen.te.TE.all;
import static dev.kernelgen.te.TE.compute;
import static dev.kernelgen.te.TE.exp;
import static dev.kernelgen.te.TE.max;
import static dev.kernelgen.te.TE.placeholder;
import static dev.kernelgen.te.TE.pow;
import static dev.kernelgen.te.TE.reduce;
import static dev.kernelgen.te.TE.reduceAxis;
import static dev.kernelgen.te.TE.reduceWhere;
import static dev.kernelgen.te.TE.select;
import static dev.kernelgen.te.TE.shape;
import static dev.kernelgen.te.TE.sqrt;
import static dev.kernelgen.te.TE.sum;
import static dev.kernelgen.te.TE.tanh;
import static dev.kernelgen.te.TE.var;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.kernelgen.diag.UserError;
import dev.kernelgen.te.Cast;
import dev.kernelgen.te.DType;
import dev.kernelgen.te.Expr;
import dev.kernelgen.te.FloatImm;
import dev.kernelgen.te.IntImm;
import dev.kernelgen.te.IterVar;
import dev.kernelgen.te.Reducer;
import dev.kernelgen.te.TE;
import dev.kernelgen.te.Tensor;
import dev.kernelgen.te.Var;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.parallel.Isolated;

@Isolated("asserts the interpreter's speed")
class TensorInterpreterTest {
  private static long[] dims(long... d) {
    return d;
  }

  @Test
  void matmul() {
    Tensor a = placeholder("A", FLOAT32, 2, 3);
    Tensor b = placeholder("B", FLOAT32, 3, 2);
    IterVar k = reduceAxis(3, "k");
    Tensor c = compute("C", shape(2, 2), (i, j) -> sum(a.at(i, k.var()).mul(b.at(k.var(), j)), k));
    NDArray av = NDArray.of(FLOAT32, dims(2, 3), 1, 2, 3, 4, 5, 6);
    NDArray bv = NDArray.of(FLOAT32, dims(3, 2), 7, 8, 9, 10, 11, 12);
    NDArray out = TensorInterpreter.evaluate(c, Map.of(a, av, b, bv), Map.of());
    NDArray.assertClose(NDArray.of(FLOAT32, dims(2, 2), 58, 64, 139, 154), out, 0, 0);
  }

  @Test
  void sumAndMaxReductions() {
    Tensor a = placeholder("A", FLOAT64, 2, 4);
    IterVar k1 = reduceAxis(4, "k1");
    IterVar k2 = reduceAxis(4, "k2");
    Tensor rowSum = compute("RowSum", shape(2), (Var i) -> sum(a.at(i, k1.var()), k1));
    Tensor rowMax = compute("RowMax", shape(2), (Var i) -> max(a.at(i, k2.var()), k2));
    NDArray av = NDArray.of(FLOAT64, dims(2, 4), 1, -2, 3, 0.5, -1, -7, -3, -4);
    Map<Tensor, NDArray> out =
        TensorInterpreter.evaluate(List.of(rowSum, rowMax), Map.of(a, av), Map.of());
    assertThat(out.keySet()).containsExactly(rowSum, rowMax);
    NDArray.assertClose(NDArray.of(FLOAT64, dims(2), 2.5, -15), out.get(rowSum), 0, 0);
    NDArray.assertClose(NDArray.of(FLOAT64, dims(2), 3, -1), out.get(rowMax), 0, 0);
  }

  @Test
  void reductionOverTwoAxesWithCondition() {
    // Sum of the strict upper triangle of each 3x3 matrix.
    Tensor a = placeholder("A", FLOAT32, 2, 3, 3);
    IterVar r = reduceAxis(3, "r");
    IterVar s = reduceAxis(3, "s");
    Tensor t =
        compute(
            "Upper",
            shape(2),
            (Var b) ->
                reduceWhere(
                    Reducer.sum(FLOAT32), a.at(b, r.var(), s.var()), s.var().gt(r.var()), r, s));
    NDArray av = NDArray.zeros(FLOAT32, 2, 3, 3);
    for (int k = 0; k < 18; k++) {
      av.setDouble(k, k);
    }
    // b=0: elements (0,1)=1 (0,2)=2 (1,2)=5 -> 8; b=1: 10 + 11 + 14 = 35
    NDArray.assertClose(
        NDArray.of(FLOAT32, dims(2), 8, 35),
        TensorInterpreter.evaluate(t, Map.of(a, av), Map.of()),
        0,
        0);
  }

  @Test
  void generalReducerAndIntegerReductions() {
    Tensor a = placeholder("A", FLOAT32, 5);
    IterVar k = reduceAxis(5, "k");
    Reducer absMax = Reducer.of("absmax", FLOAT32, (x, y) -> x.max(TE.abs(y)), FloatImm.f32(0));
    Tensor m = compute("M", shape(1), (Var i) -> reduce(absMax, a.at(k.var()), k));
    NDArray av = NDArray.of(FLOAT32, dims(5), 1, -9, 3, 2, -4);
    NDArray.assertClose(
        NDArray.of(FLOAT32, dims(1), 9),
        TensorInterpreter.evaluate(m, Map.of(a, av), Map.of()),
        0,
        0);

    Tensor b = placeholder("B", INT32, 4);
    IterVar j = reduceAxis(4, "j");
    IterVar j2 = reduceAxis(4, "j2");
    Tensor s = compute("S", shape(1), (Var i) -> sum(b.at(j.var()), j));
    Tensor p = compute("P", shape(1), (Var i) -> reduce(Reducer.prod(INT32), b.at(j2.var()), j2));
    NDArray bv = NDArray.of(INT32, dims(4), 3, -5, 7, 2);
    Map<Tensor, NDArray> out = TensorInterpreter.evaluate(List.of(s, p), Map.of(b, bv), Map.of());
    assertThat(out.get(s).getLong(0)).isEqualTo(7);
    assertThat(out.get(p).getLong(0)).isEqualTo(-210);
  }

  @Test
  void selectPadsAndOnlyEvaluatesTheTakenBranch() {
    Tensor a = placeholder("A", FLOAT32, 4);
    Tensor padded =
        compute(
            "Padded",
            shape(6),
            (Var i) -> select(all(i.ge(1), i.lt(5)), a.at(i.sub(1)), FloatImm.f32(0)));
    NDArray av = NDArray.of(FLOAT32, dims(4), 1, 2, 3, 4);
    NDArray.assertClose(
        NDArray.of(FLOAT32, dims(6), 0, 1, 2, 3, 4, 0),
        TensorInterpreter.evaluate(padded, Map.of(a, av), Map.of()),
        0,
        0);
  }

  @Test
  void outOfBoundsReadNamesTensorAndIndex() {
    Tensor a = placeholder("A", FLOAT32, 4);
    Tensor shifted = compute("Shifted", shape(4), (Var i) -> a.at(i.sub(1)));
    assertThatThrownBy(
            () ->
                TensorInterpreter.evaluate(shifted, Map.of(a, NDArray.zeros(FLOAT32, 4)), Map.of()))
        .isInstanceOf(UserError.class)
        .hasMessageContaining("'Shifted' reads tensor 'A' out of bounds at [-1]")
        .hasMessageContaining("shape [4]");
  }

  @Test
  void symbolicDimsFromMapOrFromInputs() {
    Var n = var("n");
    Tensor a = placeholder("A", FLOAT32, n, 2);
    Tensor b =
        compute(
            "B", shape(n, 2), (i, j) -> a.at(i, j).mul(2).add(Cast.of(FLOAT32, n.mul(10).add(i))));
    NDArray av = NDArray.of(FLOAT32, dims(3, 2), 1, 2, 3, 4, 5, 6);
    NDArray expected = NDArray.of(FLOAT32, dims(3, 2), 32, 34, 37, 39, 42, 44);
    NDArray.assertClose(
        expected, TensorInterpreter.evaluate(b, Map.of(a, av), Map.of(n, 3L)), 0, 0);
    NDArray.assertClose(expected, TensorInterpreter.evaluate(b, Map.of(a, av), Map.of()), 0, 0);
    assertThatThrownBy(() -> TensorInterpreter.evaluate(b, Map.of(a, av), Map.of(n, 4L)))
        .isInstanceOf(UserError.class)
        .hasMessageContaining("input 'A' has shape [3, 2]");
  }

  @Test
  void missingInputIsNamed() {
    Tensor a = placeholder("Input", FLOAT32, 2);
    Tensor b = compute("B", shape(2), (Var i) -> a.at(i));
    assertThatThrownBy(() -> TensorInterpreter.evaluate(b, Map.of(), Map.of()))
        .isInstanceOf(UserError.class)
        .hasMessageContaining("no value for input tensor 'Input'");
  }

  @Test
  void int32WrapsAndDivisionFloors() {
    Tensor a = placeholder("A", INT32, 4);
    Tensor wrap = compute("Wrap", shape(4), (Var i) -> a.at(i).mul(1 << 30));
    Tensor div = compute("Div", shape(4), (Var i) -> a.at(i).floordiv(3));
    Tensor mod = compute("Mod", shape(4), (Var i) -> a.at(i).floormod(3));
    NDArray av = NDArray.of(INT32, dims(4), 7, -7, 4, -1);
    Map<Tensor, NDArray> out =
        TensorInterpreter.evaluate(List.of(wrap, div, mod), Map.of(a, av), Map.of());
    for (int k = 0; k < 4; k++) {
      int x = (int) av.getLong(k);
      assertThat(out.get(wrap).getLong(k)).isEqualTo(x * (1 << 30));
      assertThat(out.get(div).getLong(k)).isEqualTo(Math.floorDiv(x, 3));
      assertThat(out.get(mod).getLong(k)).isEqualTo(Math.floorMod(x, 3));
    }
    assertThat(out.get(div).getLong(1)).isEqualTo(-3);
    assertThat(out.get(mod).getLong(1)).isEqualTo(2);
  }

  @Test
  void float32RoundsEveryOperationLikeCAndASumOnce() {
    int n = 1000;
    Tensor a = placeholder("A", FLOAT32, n);
    IterVar k = reduceAxis(n, "k");
    Tensor s = compute("S", shape(1), (Var i) -> sum(a.at(k.var()).mul(FloatImm.f32(0.1)), k));
    NDArray av = NDArray.random(FLOAT32, 7, n);
    double expected = 0;
    for (int i = 0; i < n; i++) {
      expected += (float) av.getDouble(i) * 0.1f;
    }
    NDArray out = TensorInterpreter.evaluate(s, Map.of(a, av), Map.of());
    assertThat(out.getDouble(0)).isEqualTo((double) (float) expected);
    // A sum's value, not one order's rounding errors: 2^24 and then a thousand ones, summed in
    // float one after another, stay at 2^24.
    Tensor b = placeholder("B", FLOAT32, n + 1);
    IterVar j = reduceAxis(n + 1, "j");
    Tensor total = compute("Total", shape(1), (Var i) -> sum(b.at(j.var()), j));
    NDArray bv = NDArray.zeros(FLOAT32, n + 1);
    bv.setDouble(0, 1 << 24);
    for (int i = 1; i <= n; i++) {
      bv.setDouble(i, 1);
    }
    assertThat(TensorInterpreter.evaluate(total, Map.of(b, bv), Map.of()).getDouble(0))
        .isEqualTo((1 << 24) + n);
  }

  @Test
  void intrinsicsAndCasts() {
    Tensor a = placeholder("A", FLOAT64, 3);
    Tensor y =
        compute(
            "Y",
            shape(3),
            (Var i) -> {
              Expr x = a.at(i);
              return exp(x).add(sqrt(x.mul(x))).add(tanh(x)).add(pow(x, FloatImm.f64(3)));
            });
    Tensor t = compute("T", shape(3), (Var i) -> Cast.of(INT32, a.at(i).mul(10)));
    NDArray av = NDArray.of(FLOAT64, dims(3), 0.5, -1.25, 2);
    Map<Tensor, NDArray> out = TensorInterpreter.evaluate(List.of(y, t), Map.of(a, av), Map.of());
    for (int k = 0; k < 3; k++) {
      double x = av.getDouble(k);
      assertThat(out.get(y).getDouble(k))
          .isEqualTo(Math.exp(x) + Math.sqrt(x * x) + Math.tanh(x) + Math.pow(x, 3));
      assertThat(out.get(t).getLong(k)).isEqualTo((long) (x * 10));
    }
  }

  /** Depthwise conv2d, NCHW, channel multiplier, stride and padding, via a padded stage. */
  static Tensor depthwise(
      Tensor input, Tensor filter, int c, int m, int h, int w, int k, int stride, int pad) {
    Tensor padded =
        compute(
            "Padded",
            shape(1, c, h + 2 * pad, w + 2 * pad),
            (b, ch, y, x) ->
                select(
                    all(y.ge(pad), y.lt(h + pad), x.ge(pad), x.lt(w + pad)),
                    input.at(b, ch, y.sub(pad), x.sub(pad)),
                    FloatImm.f32(0)));
    int oh = (h + 2 * pad - k) / stride + 1;
    int ow = (w + 2 * pad - k) / stride + 1;
    IterVar di = reduceAxis(k, "di");
    IterVar dj = reduceAxis(k, "dj");
    return compute(
        "Depthwise",
        shape(1, c * m, oh, ow),
        (b, oc, y, x) ->
            sum(
                padded
                    .at(b, oc.floordiv(m), y.mul(stride).add(di.var()), x.mul(stride).add(dj.var()))
                    .mul(filter.at(oc.floordiv(m), oc.floormod(m), di.var(), dj.var())),
                di,
                dj));
  }

  static NDArray depthwiseLoop(
      NDArray in, NDArray f, int c, int m, int h, int w, int k, int stride, int pad) {
    int oh = (h + 2 * pad - k) / stride + 1;
    int ow = (w + 2 * pad - k) / stride + 1;
    NDArray out = NDArray.zeros(FLOAT32, 1, c * m, oh, ow);
    for (int oc = 0; oc < c * m; oc++) {
      int ic = oc / m;
      for (int y = 0; y < oh; y++) {
        for (int x = 0; x < ow; x++) {
          double acc = 0; // each product rounded to float, the sum kept in double
          for (int di = 0; di < k; di++) {
            for (int dj = 0; dj < k; dj++) {
              int iy = y * stride + di - pad;
              int ix = x * stride + dj - pad;
              float v =
                  iy >= 0 && iy < h && ix >= 0 && ix < w
                      ? (float) in.getDouble(((long) ic * h + iy) * w + ix)
                      : 0f;
              acc += v * (float) f.getDouble((((long) ic * m + oc % m) * k + di) * k + dj);
            }
          }
          out.setDouble(((long) oc * oh + y) * ow + x, (float) acc);
        }
      }
    }
    return out;
  }

  @Test
  void depthwiseConvMatchesPlainLoop() {
    int c = 3;
    int m = 2;
    int h = 7;
    int w = 6;
    int k = 3;
    for (int[] sp : new int[][] {{1, 1}, {2, 1}, {1, 0}, {2, 2}}) {
      Tensor in = placeholder("In", FLOAT32, 1, c, h, w);
      Tensor f = placeholder("F", FLOAT32, c, m, k, k);
      Tensor out = depthwise(in, f, c, m, h, w, k, sp[0], sp[1]);
      NDArray iv = NDArray.random(FLOAT32, 1, 1, c, h, w);
      NDArray fv = NDArray.random(FLOAT32, 2, c, m, k, k);
      NDArray got = TensorInterpreter.evaluate(out, Map.of(in, iv, f, fv), Map.of());
      // The same products rounded to float, the same sum rounded once: exactly equal.
      NDArray.assertClose(depthwiseLoop(iv, fv, c, m, h, w, k, sp[0], sp[1]), got, 0, 0);
    }
  }

  @Test
  void depthwiseWithSelectInsideTheReduction() {
    int c = 2;
    int h = 5;
    int k = 3;
    Tensor in = placeholder("In", FLOAT32, 1, c, h, h);
    Tensor f = placeholder("F", FLOAT32, c, 1, k, k);
    IterVar di = reduceAxis(k, "di");
    IterVar dj = reduceAxis(k, "dj");
    Tensor out =
        compute(
            "Out",
            shape(1, c, h, h),
            (b, ch, y, x) -> {
              Expr iy = y.add(di.var()).sub(1);
              Expr ix = x.add(dj.var()).sub(1);
              Expr v =
                  select(
                      all(iy.ge(0), iy.lt(h), ix.ge(0), ix.lt(h)),
                      in.at(b, ch, iy, ix),
                      FloatImm.f32(0));
              return sum(v.mul(f.at(ch, 0, di.var(), dj.var())), di, dj);
            });
    NDArray iv = NDArray.random(FLOAT32, 3, 1, c, h, h);
    NDArray fv = NDArray.random(FLOAT32, 4, c, 1, k, k);
    NDArray.assertClose(
        depthwiseLoop(iv, fv, c, 1, h, h, k, 1, 1),
        TensorInterpreter.evaluate(out, Map.of(in, iv, f, fv), Map.of()),
        0,
        0);
  }

  @Test
  void tenMillionMultiplyAddsTakeLessThanThreeSeconds() {
    int c = 64;
    int m = 2;
    int h = 96;
    int k = 3;
    Tensor in = placeholder("In", FLOAT32, 1, c, h, h);
    Tensor f = placeholder("F", FLOAT32, c, m, k, k);
    Tensor out = depthwise(in, f, c, m, h, h, k, 1, 1);
    NDArray iv = NDArray.random(FLOAT32, 1, 1, c, h, h);
    NDArray fv = NDArray.random(FLOAT32, 2, c, m, k, k);
    long macs = (long) c * m * h * h * k * k;
    assertThat(macs).isGreaterThan(10_000_000L);
    long t0 = System.nanoTime();
    NDArray got = TensorInterpreter.evaluate(out, Map.of(in, iv, f, fv), Map.of());
    double seconds = (System.nanoTime() - t0) / 1e9;
    assertThat(seconds).as("seconds for %d multiply-adds", macs).isLessThan(3.0);
    assertThat(got.shape()).containsExactly(1, c * m, h, h);
    // Spot-check one element against the plain loop's formula.
    NDArray ref = depthwiseLoop(iv, fv, c, m, h, h, k, 1, 1);
    NDArray.assertClose(ref, got, 0, 0);
  }

  @Test
  void intermediatesAreSharedAndGivenTensorsOverride() {
    Tensor a = placeholder("A", FLOAT32, 3);
    Tensor b = compute("B", shape(3), (Var i) -> a.at(i).add(1));
    Tensor c = compute("C", shape(3), (Var i) -> b.at(i).mul(b.at(i)));
    NDArray av = NDArray.of(FLOAT32, dims(3), 0, 1, 2);
    NDArray.assertClose(
        NDArray.of(FLOAT32, dims(3), 1, 4, 9),
        TensorInterpreter.evaluate(c, Map.of(a, av), Map.of()),
        0,
        0);
    // Giving B directly skips its definition (A is then not needed).
    NDArray bv = NDArray.of(FLOAT32, dims(3), 5, 6, 7);
    NDArray.assertClose(
        NDArray.of(FLOAT32, dims(3), 25, 36, 49),
        TensorInterpreter.evaluate(c, Map.of(b, bv), Map.of()),
        0,
        0);
  }

  @Test
  void boolAndInt64Tensors() {
    Tensor a = placeholder("A", FLOAT32, 4);
    Tensor positive = compute("Positive", shape(4), (Var i) -> a.at(i).gt(FloatImm.f32(0)));
    Tensor wide =
        compute(
            "Wide",
            shape(4),
            (Var i) ->
                select(
                    positive.at(i),
                    Cast.of(DType.INT64, i).mul(IntImm.of(DType.INT64, 1L << 40)),
                    IntImm.of(DType.INT64, -1)));
    NDArray av = NDArray.of(FLOAT32, dims(4), 1, -1, 0, 2);
    Map<Tensor, NDArray> out =
        TensorInterpreter.evaluate(List.of(positive, wide), Map.of(a, av), Map.of());
    assertThat(out.get(positive).dtype()).isEqualTo(DType.BOOL);
    assertThat(
            new long[] {
              out.get(positive).getLong(0),
              out.get(positive).getLong(1),
              out.get(positive).getLong(2),
              out.get(positive).getLong(3)
            })
        .containsExactly(1, 0, 0, 1);
    assertThat(out.get(wide).getLong(0)).isEqualTo(0);
    assertThat(out.get(wide).getLong(1)).isEqualTo(-1);
    assertThat(out.get(wide).getLong(3)).isEqualTo(3L << 40);
  }

  @Test
  void reductionWithSymbolicExtentAndTransposedRead() {
    // C[i] = sum_k A[k, i] * B[i]: the reduction strides down a column; the B read does not move.
    Var n = var("n");
    Tensor a = placeholder("A", FLOAT64, n, 3);
    Tensor b = placeholder("B", FLOAT64, 3);
    IterVar k = reduceAxis(n, "k");
    Tensor c = compute("C", shape(3), (Var i) -> sum(a.at(k.var(), i).mul(b.at(i)), k));
    NDArray av = NDArray.random(FLOAT64, 8, 5, 3);
    NDArray bv = NDArray.random(FLOAT64, 9, 3);
    NDArray out = TensorInterpreter.evaluate(c, Map.of(a, av, b, bv), Map.of(n, 5L));
    for (int i = 0; i < 3; i++) {
      double acc = 0;
      for (int r = 0; r < 5; r++) {
        acc += av.getDouble(r * 3 + i) * bv.getDouble(i);
      }
      assertThat(out.getDouble(i)).isEqualTo(acc);
    }
  }
}
