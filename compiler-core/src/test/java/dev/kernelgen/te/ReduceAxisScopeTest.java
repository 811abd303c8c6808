package dev.kernelgen.te;

import static dev.kernelgen.te.TE.FLOAT32;
import static dev.kernelgen.te.TE.compute;
import static dev.kernelgen.te.TE.max;
import static dev.kernelgen.te.TE.placeholder;
import static dev.kernelgen.te.TE.reduceAxis;
import static dev.kernelgen.te.TE.shape;
import static dev.kernelgen.te.TE.sum;
import static dev.kernelgen.te.TE.var;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.kernelgen.diag.UserError;
import org.junit.jupiter.api.Test;

/**
 * A reduce axis read outside the reduction that binds it is the user's mistake, caught when the
 * compute is built and named by tensor and axis (it was an internal error in lowering: "'k2' is
 * used in function rowSum outside of the scope that binds it").
 */
class ReduceAxisScopeTest {
  private final Var m = var("m");
  private final Var n = var("n");
  private final Tensor x = placeholder("x", FLOAT32, m, n);
  private final IterVar k = reduceAxis(n, "k");
  private final IterVar k2 = reduceAxis(n, "k2");

  @Test
  void aReduceAxisInAnElementwiseBodyIsAUserError() {
    Tensor s = compute("s", shape(m), i -> sum(x.at(i, k.var()), k));
    assertThatThrownBy(() -> compute("rowSum", shape(m), i -> s.at(i).add(x.at(i, k2.var()))))
        .isInstanceOf(UserError.class)
        .hasMessageStartingWith("compute 'rowSum' uses reduce axis 'k2' outside a reduction");
  }

  @Test
  void aReduceAxisThatItsReductionDoesNotListIsAUserError() {
    assertThatThrownBy(
            () -> compute("rowMax", shape(m), i -> max(x.at(i, k.var()).add(x.at(i, k2.var())), k)))
        .isInstanceOf(UserError.class)
        .hasMessageContaining("compute 'rowMax' uses reduce axis 'k2'");
  }

  @Test
  void reduceAxesInsideTheirReductionAndDimsAreFine() {
    Tensor s = compute("s", shape(m), i -> sum(x.at(i, k.var()).add(x.at(i, k2.var())), k, k2));
    assertThat(s.op()).isInstanceOf(ComputeOp.class);
    Tensor t = compute("t", shape(m), i -> s.at(i).mul(2f).add(TE.cast(FLOAT32, n)));
    assertThat(t.op().inputs()).containsExactly(s);
  }
}
