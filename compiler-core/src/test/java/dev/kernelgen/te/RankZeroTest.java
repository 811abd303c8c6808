package dev.kernelgen.te;

import static dev.kernelgen.te.TE.FLOAT32;
import static dev.kernelgen.te.TE.compute;
import static dev.kernelgen.te.TE.computeN;
import static dev.kernelgen.te.TE.placeholder;
import static dev.kernelgen.te.TE.reduceAxis;
import static dev.kernelgen.te.TE.shape;
import static dev.kernelgen.te.TE.sum;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.kernelgen.diag.UserError;
import org.junit.jupiter.api.Test;

/**
 * Tensors of rank 0 are refused where they are declared, with the way to write a scalar: a new
 * user's scalar parameter ({@code placeholder("Alpha", FLOAT32, shape())}) and scalar output passed
 * the definition and then failed inside the auto-scheduler's rules with an index of -1.
 */
class RankZeroTest {
  @Test
  void aScalarPlaceholderIsRefusedWithTheWayToDeclareOne() {
    assertThatThrownBy(() -> placeholder("Alpha", FLOAT32, shape()))
        .isInstanceOf(UserError.class)
        .hasMessageContaining("tensor 'Alpha' has no dims (rank 0)")
        .hasMessageContaining("shape(1)");
  }

  @Test
  void aScalarComputeIsRefusedToo() {
    Tensor x = placeholder("X", FLOAT32, 9);
    IterVar k = reduceAxis(9, "k");
    assertThatThrownBy(() -> computeN("Total", shape(), ix -> sum(x.at(k.var()), k)))
        .isInstanceOf(UserError.class)
        .hasMessageContaining("tensor 'Total' has no dims (rank 0)");
  }

  @Test
  void aScalarOfOneElementAndAReductionOverEveryAxisInsideAnExpressionStillBuild() {
    Tensor x = placeholder("X", FLOAT32, 4, 9);
    Tensor alpha = placeholder("Alpha", FLOAT32, shape(1));
    IterVar a = reduceAxis(4, "a");
    IterVar b = reduceAxis(9, "b");
    Tensor centred =
        compute(
            "Centred",
            x.shape(),
            (i, j) ->
                x.at(i, j).sub(sum(x.at(a.var(), b.var()), a, b).mul(1.0 / 36)).mul(alpha.at(0)));
    assertThat(centred.ndim()).isEqualTo(2);
  }
}
