package dev.kernelgen.lower;

import static dev.kernelgen.te.TE.*;
import static org.assertj.core.api.Assertions.assertThat;

import dev.kernelgen.annotations.Target;
import dev.kernelgen.schedule.Schedule;
import dev.kernelgen.schedule.Stage;
import dev.kernelgen.te.Expr;
import dev.kernelgen.te.Tensor;
import dev.kernelgen.testing.Check;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** {@link UnswitchCases}: a case select fixed by an outer loop is decided before the inner one. */
class UnswitchCasesTest {
  /** {@code Y[c, j] = (c == 0 ? X[j] : c == 1 ? 2 X[j] : ... )}, {@code cases} cases over c. */
  private static Tensor cases(int cases, int n) {
    Tensor x = placeholder("X", FLOAT32, n);
    return compute(
        "Y",
        shape(cases, n),
        (c, j) -> {
          Expr out = x.at(j).mul((double) cases);
          for (int k = cases - 2; k >= 0; k--) {
            out = select(c.eq(k), x.at(j).mul((double) k + 1), out);
          }
          return out;
        });
  }

  private static Schedule vectorizedRows(Tensor y) {
    Schedule s = Schedule.create(y);
    Stage st = s.stage(y);
    st.vectorize(st.axis(1));
    return s;
  }

  @Test
  void eachCaseGetsItsOwnLoopWithoutTheSelect() {
    Schedule s = vectorizedRows(cases(4, 37));
    String ir = PassIrTest.dumps(s, Target.C).get("unswitch_cases");
    assertThat(ir).as("the IR after unswitch_cases").isNotNull();
    // Three tests (i == 0, 1, 2) before four copies of the vectorized loop, none of which selects.
    assertThat(ir.split("vectorized", -1)).hasSize(5);
    assertThat(ir.substring(ir.indexOf("vectorized"))).doesNotContain("select(");
    assertThat(ir).contains("if (i == 0)");
    assertThat(ir.indexOf("if (i == 0)")).isLessThan(ir.indexOf("vectorized"));
    Check.check(s, Map.of());
    // Not in Java, whose JIT unswitches loops itself.
    assertThat(PassIrTest.dumps(s, Target.JAVA)).doesNotContainKey("unswitch_cases");
  }

  @Test
  void boundaryTestsAndTestsOfTheInnerLoopStay() {
    // A test of the inner loop's own variable changes within it; a boundary test is not a case.
    Tensor x = placeholder("X", FLOAT32, 19);
    Tensor inner = compute("Y", shape(3, 19), (c, j) -> select(j.eq(4), x.at(j).mul(2.0), x.at(j)));
    assertThat(PassIrTest.dumps(vectorizedRows(inner), Target.C))
        .doesNotContainKey("unswitch_cases");
    Check.check(vectorizedRows(inner), Map.of());
    Tensor bound = compute("Y", shape(3, 19), (c, j) -> select(c.lt(1), x.at(j).mul(2.0), x.at(j)));
    assertThat(PassIrTest.dumps(vectorizedRows(bound), Target.C))
        .doesNotContainKey("unswitch_cases");
  }

  @Test
  void tooManyCasesStaySelects() {
    // 66 cases need 65 copies of the loop: over the budget, the loop is left as it is.
    Schedule s = vectorizedRows(cases(UnswitchCases.MAX_COPIES + 2, 5));
    assertThat(PassIrTest.dumps(s, Target.C)).doesNotContainKey("unswitch_cases");
    Schedule within = vectorizedRows(cases(UnswitchCases.MAX_COPIES, 5));
    assertThat(PassIrTest.dumps(within, Target.C)).containsKey("unswitch_cases");
    Check.check(within, Map.of());
  }

  @Test
  void casesInsideCopiesShareOneBudget() {
    // Three case axes of 8 over three loops: 7 + 8 x 7 + 64 x 7 = 511 tests if each copy split
    // its inner loops in turn; a function gets at most MAX_SPLITS of them.
    Tensor x = placeholder("X", FLOAT32, 9);
    Tensor y =
        compute(
            "Y",
            shape(8, 8, 8, 9),
            (a, b, c, j) -> {
              Expr out = x.at(j);
              List<Expr> v = List.of(a, b, c);
              for (int d = 0; d < 3; d++) {
                Expr chain = x.at(j).mul(9.0 + d);
                for (int k = 6; k >= 0; k--) {
                  chain = select(v.get(d).eq(k), x.at(j).mul((double) k + d + 2), chain);
                }
                out = out.add(chain);
              }
              return out;
            });
    Schedule s = Schedule.create(y);
    s.stage(y).vectorize(s.stage(y).axis(3));
    String ir = PassIrTest.dumps(s, Target.C).get("unswitch_cases");
    assertThat(ir).as("the IR after unswitch_cases").isNotNull();
    assertThat(ir.split("if \\(", -1).length - 1)
        .as("tests inside the copies (over 7 + 8 x 7), within the budget")
        .isGreaterThan(63)
        .isLessThanOrEqualTo(UnswitchCases.MAX_SPLITS);
    Check.check(s, Map.of());
  }
}
