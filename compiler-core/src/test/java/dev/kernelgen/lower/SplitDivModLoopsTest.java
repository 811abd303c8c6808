package dev.kernelgen.lower;

import static dev.kernelgen.te.TE.*;
import static org.assertj.core.api.Assertions.assertThat;

import dev.kernelgen.annotations.Target;
import dev.kernelgen.schedule.Schedule;
import dev.kernelgen.schedule.Stage;
import dev.kernelgen.te.Tensor;
import dev.kernelgen.testing.Check;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** {@link SplitDivModLoops}: a vectorized loop over a flattened index runs as its two loops. */
class SplitDivModLoopsTest {
  /** Every other element of every other row of X [2 rows, 2 cols], as a flat [rows * cols]. */
  private static Schedule downsample(int rows, int cols) {
    Tensor x = placeholder("X", FLOAT32, 2 * rows, 2 * cols);
    Tensor y =
        compute(
            "Y",
            shape(rows * cols),
            l -> x.at(l.floordiv(cols).mul(2), l.floormod(cols).mul(2)).add(1.0));
    Schedule s = Schedule.create(y);
    Stage st = s.stage(y);
    st.vectorize(st.axis(0));
    return s;
  }

  @Test
  void theDivisionAndTheRemainderBecomeLoopVariables() {
    Schedule s = downsample(5, 28);
    String ir = PassIrTest.dumps(s, Target.C).get("split_div_mod_loops");
    assertThat(ir).as("the IR after split_div_mod_loops").isNotNull();
    assertThat(ir).doesNotContain("floordiv(", "floormod(", " / 28", " % 28");
    assertThat(ir).contains("for i_o in [0, 5)").contains("vectorized i_i in [0, 28)");
    Check.check(s, Map.of());
  }

  @Test
  void aDivisorThatDoesNotDivideTheExtentLeavesAPartialLastRow() {
    // 140 elements, the first 3 of each row of 5: 3 does not divide 140, the last row holds 2.
    Tensor x = placeholder("X", FLOAT32, 47, 5);
    Tensor y = compute("Y", shape(140), l -> x.at(l.floordiv(3), l.floormod(3)));
    Schedule s = Schedule.create(y);
    s.stage(y).vectorize(s.stage(y).axis(0));
    String ir = PassIrTest.dumps(s, Target.C).get("split_div_mod_loops");
    assertThat(ir).as("the IR after split_div_mod_loops").isNotNull();
    assertThat(ir).contains("for i_o in [0, 47)").contains("(((i_o * 3) + i_i) < 140)");
    assertThat(ir).doesNotContain("floordiv(", "floormod(");
    Check.check(s, Map.of());
    // Only C: Java's loops are left as they are.
    assertThat(PassIrTest.dumps(downsample(5, 28), Target.JAVA))
        .doesNotContainKey("split_div_mod_loops");
  }
}
