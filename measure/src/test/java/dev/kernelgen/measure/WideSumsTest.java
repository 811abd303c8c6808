package dev.kernelgen.measure;

import static dev.kernelgen.te.TE.FLOAT32;
import static dev.kernelgen.te.TE.compute;
import static dev.kernelgen.te.TE.placeholder;
import static dev.kernelgen.te.TE.reduceAxis;
import static dev.kernelgen.te.TE.shape;
import static dev.kernelgen.te.TE.sum;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assumptions.assumeThat;

import dev.kernelgen.annotations.Target;
import dev.kernelgen.codegen.NativeToolchain;
import dev.kernelgen.eval.NDArray;
import dev.kernelgen.eval.TensorInterpreter;
import dev.kernelgen.schedule.Schedule;
import dev.kernelgen.spec.OperatorDef;
import dev.kernelgen.te.IterVar;
import dev.kernelgen.te.Tensor;
import dev.kernelgen.tune.ReferenceCache;
import dev.kernelgen.tune.TuningTask;
import java.util.List;
import java.util.Map;
import org.assertj.core.data.Percentage;
import org.junit.jupiter.api.Test;

/**
 * References of long float32 sums: the interpreter and the naive loop nest that stands in for it on
 * large tasks ({@link WideSums}) both give the sum's value, not one summation order's rounding
 * errors, so that a kernel summing in another order is judged by its own error.
 */
class WideSumsTest {
  private static final int ROWS = 2048;
  private static final int COLS = 2048;

  /** Within a float32 rounding of the value. */
  private static final Percentage CLOSE = Percentage.withPercentage(1e-5);

  /**
   * The sum of squares of a whole [2048, 2048] tensor, twice: in one reduction over both axes, and
   * as the sum of the rows' sums (a sum read by a sum).
   */
  private static TuningTask task() {
    Tensor x = placeholder("X", FLOAT32, ROWS, COLS);
    IterVar r = reduceAxis(ROWS, "r");
    IterVar k = reduceAxis(COLS, "k");
    Tensor total =
        compute(
            "Total", shape(1), i -> sum(x.at(r.var(), k.var()).mul(x.at(r.var(), k.var())), r, k));
    IterVar k2 = reduceAxis(COLS, "k2");
    IterVar r2 = reduceAxis(ROWS, "r2");
    Tensor rows =
        compute("Rows", shape(ROWS), i -> sum(x.at(i, k2.var()).mul(x.at(i, k2.var())), k2));
    Tensor ofRows = compute("OfRows", shape(1), i -> sum(rows.at(r2.var()), r2));
    OperatorDef def = OperatorDef.of(List.of(x), List.of(total, ofRows));
    return new TuningTask(
        "Test/sum_of_squares", Target.C, def, knobs -> Schedule.create(def.outputs()), "k");
  }

  /** The sum of the squares of the task's input, in double. */
  private static double exact(TuningTask t) {
    NDArray x = ReferenceCache.inputs(t).get(0);
    double s = 0;
    for (long i = 0; i < x.size(); i++) {
      double v = (float) (x.getDouble(i) * x.getDouble(i));
      s += v;
    }
    return s;
  }

  @Test
  void theInterpretersFloat32SumIsTheSumsValue() {
    TuningTask t = task();
    NDArray x = ReferenceCache.inputs(t).get(0);
    Map<Tensor, NDArray> out =
        TensorInterpreter.evaluate(t.def().outputs(), Map.of(t.def().inputs().get(0), x), Map.of());
    // Summed in float one term after another, 4M squares drift by about 1e-4 of the total.
    for (Tensor o : t.def().outputs()) {
      assertThat(out.get(o).getDouble(0)).as(o.name()).isCloseTo(exact(t), CLOSE);
    }
  }

  @Test
  void theNaiveLoopNestStandingInForTheOracleSumsInDouble() {
    assumeThat(NativeToolchain.fromEnvironment().findCc()).as("cc on PATH").isPresent();
    TuningTask t = task();
    // A limit of 0 element operations: the reference is the naive loop nest's, run in C.
    try (CHarnessMeasurer m =
        new CHarnessMeasurer(NativeToolchain.fromEnvironment(), 2, 0, 1, 60)
            .withInterpreterLimit(0)) {
      List<NDArray> ref = m.expectedOutputs(t);
      assertThat(ref.get(0).getDouble(0)).as("Total").isCloseTo(exact(t), CLOSE);
      assertThat(ref.get(1).getDouble(0)).as("OfRows").isCloseTo(exact(t), CLOSE);
    }
  }

  @Test
  void anOperatorWithoutFloat32SumsIsItself() {
    Tensor x = placeholder("X", FLOAT32, 8);
    Tensor y = compute("Y", shape(8), i -> x.at(i).mul(2.0));
    OperatorDef def = OperatorDef.of(List.of(x), y);
    assertThat(WideSums.of(def)).isSameAs(def);
  }
}
