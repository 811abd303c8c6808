package dev.kernelgen.schedule;

import static dev.kernelgen.te.TE.FLOAT32;
import static dev.kernelgen.te.TE.compute;
import static dev.kernelgen.te.TE.maximum;
import static dev.kernelgen.te.TE.minimum;
import static dev.kernelgen.te.TE.placeholder;
import static dev.kernelgen.te.TE.reduceAxis;
import static dev.kernelgen.te.TE.select;
import static dev.kernelgen.te.TE.shape;
import static dev.kernelgen.te.TE.sum;
import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.kernelgen.diag.UserError;
import dev.kernelgen.te.Expr;
import dev.kernelgen.te.IterVar;
import dev.kernelgen.te.Tensor;
import org.junit.jupiter.api.Test;

/**
 * {@link ReadBounds}: a read outside every select whose affine index passes its tensor's dim is an
 * error naming the read, the index's range and the dim; reads a select guards, indices that are not
 * affine and windows that stay inside are left alone.
 */
class ReadBoundsTest {
  @Test
  void aReadPastTheEndOrBeforeTheStartIsAnErrorNamingIt() {
    Tensor x = placeholder("X", FLOAT32, 3, 4);
    Tensor past = compute("Y", shape(3, 4), (i, j) -> x.at(i, j.add(10)));
    assertThatThrownBy(() -> Schedule.create(past))
        .isInstanceOf(UserError.class)
        .hasMessageContaining("compute 'Y' reads X[i, (j + 10)] outside 'X'")
        .hasMessageContaining("its index 1 takes 10..13, but dim 1 of 'X' has 4 elements");
    IterVar k = reduceAxis(3, "k");
    Tensor before = compute("Z", shape(3, 4), (i, j) -> sum(x.at(i, j.add(k.var()).sub(1)), k));
    assertThatThrownBy(() -> Schedule.create(before))
        .isInstanceOf(UserError.class)
        .hasMessageContaining("its index 1 takes -1..4");
  }

  @Test
  void guardedClampedAndInsideReadsAreLeftAlone() {
    Tensor x = placeholder("X", FLOAT32, 1, 2, 9, 9);
    Tensor w = placeholder("W", FLOAT32, 2, 3, 3);
    IterVar ky = reduceAxis(3, "ky");
    IterVar kx = reduceAxis(3, "kx");
    // A padded window (the select tests the bounds), a clamped one, a strided one inside.
    Tensor padded =
        compute(
            "Padded",
            shape(1, 2, 9, 9),
            (n, c, i, j) -> {
              Expr iy = i.add(ky.var()).sub(1);
              Expr ix = j.add(kx.var()).sub(1);
              Expr in =
                  select(
                      iy.ge(0).and(iy.lt(9)).and(ix.ge(0)).and(ix.lt(9)), x.at(n, c, iy, ix), 0.0);
              return sum(in.mul(w.at(c, ky.var(), kx.var())), ky, kx);
            });
    IterVar cy = reduceAxis(3, "cy");
    Tensor clamped =
        compute(
            "Clamped",
            shape(1, 2, 9, 9),
            (n, c, i, j) -> sum(x.at(n, c, minimum(maximum(i.add(cy.var()).sub(1), 0), 8), j), cy));
    IterVar sy = reduceAxis(3, "sy");
    IterVar sx = reduceAxis(3, "sx");
    Tensor strided =
        compute(
            "Strided",
            shape(1, 2, 4, 4),
            (n, c, i, j) ->
                sum(x.at(n, c, i.mul(2).add(sy.var()), j.mul(2).add(sx.var())), sy, sx));
    for (Tensor t : new Tensor[] {padded, clamped, strided}) {
      assertThatCode(() -> Schedule.create(t)).as(t.name()).doesNotThrowAnyException();
    }
  }
}
