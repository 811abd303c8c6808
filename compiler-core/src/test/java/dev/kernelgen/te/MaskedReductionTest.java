package dev.kernelgen.te;

import static dev.kernelgen.te.TE.FLOAT32;
import static dev.kernelgen.te.TE.max;
import static dev.kernelgen.te.TE.placeholder;
import static dev.kernelgen.te.TE.reduceAxis;
import static dev.kernelgen.te.TE.select;
import static dev.kernelgen.te.TE.sum;
import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/**
 * {@link TE#reduce}: a source that selects the reducer's identity where a condition on indices
 * fails reduces over the points where it holds (its loops then skip the rest); anything else is
 * left as written.
 */
class MaskedReductionTest {
  private final Tensor x = placeholder("X", FLOAT32, 4, 9);
  private final IterVar k = reduceAxis(9, "k");
  private final Var j = new Var("j", TE.INT32);

  @Test
  void aMaskOfTheIdentityBecomesTheReductionsCondition() {
    Reduce r = (Reduce) sum(select(k.var().le(j), x.at(0, k.var()), 0.0), k);
    assertThat(r.source()).isEqualTo(x.at(0, k.var()));
    assertThat(r.condition()).isEqualTo(k.var().le(j));
    // Nested masks are conjoined; max's identity is -inf.
    Reduce band =
        (Reduce)
            max(
                select(
                    k.var().le(j),
                    select(k.var().ge(2), x.at(0, k.var()), Double.NEGATIVE_INFINITY),
                    Double.NEGATIVE_INFINITY),
                k);
    assertThat(band.source()).isEqualTo(x.at(0, k.var()));
    assertThat(band.condition()).isEqualTo(k.var().le(j).and(k.var().ge(2)));
  }

  @Test
  void otherSelectsStayAsWritten() {
    // Not the identity: the masked points count (as 1).
    Reduce ones = (Reduce) sum(select(k.var().le(j), x.at(0, k.var()), 1.0), k);
    assertThat(ones.source()).isInstanceOf(Select.class);
    // A condition that reads a tensor (a mask given as data), or none of the reduction's axes.
    Reduce data =
        (Reduce) sum(select(x.at(1, k.var()).gt(FloatImm.f32(0)), x.at(0, k.var()), 0.0), k);
    assertThat(data.source()).isInstanceOf(Select.class);
    Reduce outer = (Reduce) sum(select(j.lt(3), x.at(0, k.var()), 0.0), k);
    assertThat(outer.source()).isInstanceOf(Select.class);
    assertThat(outer.condition()).isEqualTo(IntImm.ofBool(true));
  }

  /**
   * A window's padding ({@code j + k - 1} inside [0, 9): the axis and the output's index move the
   * same way) fails at the borders only and stays a select; a mask of the axis against the output
   * ({@code j - k}), a bound on the axis alone, or a divisibility test is the reduction's
   * condition.
   */
  @Test
  void aWindowsPaddingStaysASelect() {
    Expr iy = j.add(k.var()).sub(1);
    Reduce pad = (Reduce) sum(select(iy.ge(0).and(iy.lt(9)), x.at(0, k.var()), 0.0), k);
    assertThat(pad.source()).isInstanceOf(Select.class);
    Expr strided = j.mul(2).add(k.var().mul(2)).sub(3);
    Reduce dilated = (Reduce) sum(select(strided.ge(0), x.at(0, k.var()), 0.0), k);
    assertThat(dilated.source()).isInstanceOf(Select.class);
    // A transposed convolution's input row j + 1 - k: the axis against the output.
    Expr back = j.add(1).sub(k.var());
    Reduce transposed = (Reduce) sum(select(back.ge(0).and(back.lt(9)), x.at(0, k.var()), 0.0), k);
    assertThat(transposed.condition()).isEqualTo(back.ge(0).and(back.lt(9)));
    Reduce head = (Reduce) sum(select(k.var().lt(5), x.at(0, k.var()), 0.0), k);
    assertThat(head.condition()).isEqualTo(k.var().lt(5));
    // Padding beside a mask: the whole condition is the reduction's.
    Reduce both = (Reduce) sum(select(iy.ge(0).and(k.var().le(j)), x.at(0, k.var()), 0.0), k);
    assertThat(both.source()).isEqualTo(x.at(0, k.var()));
  }
}
