package dev.kernelgen.schedule;

import static dev.kernelgen.te.TE.FLOAT32;
import static dev.kernelgen.te.TE.cast;
import static dev.kernelgen.te.TE.compute;
import static dev.kernelgen.te.TE.placeholder;
import static dev.kernelgen.te.TE.reduceAxis;
import static dev.kernelgen.te.TE.select;
import static dev.kernelgen.te.TE.shape;
import static dev.kernelgen.te.TE.sum;
import static dev.kernelgen.te.TE.var;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.kernelgen.diag.UserError;
import dev.kernelgen.te.Expr;
import dev.kernelgen.te.ExprVisitor;
import dev.kernelgen.te.FloatImm;
import dev.kernelgen.te.IterVar;
import dev.kernelgen.te.Select;
import dev.kernelgen.te.Tensor;
import dev.kernelgen.te.TensorRead;
import dev.kernelgen.te.Var;
import dev.kernelgen.testing.Check;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * {@link Schedule#pad}: a window's padding written inside its sum as a select, moved into a padded
 * copy of the input, equals the oracle on the IR interpreter, C and Java; which selects it drops.
 */
class PaddedReadsTest {
  private static final FloatImm ZERO = new FloatImm(FLOAT32, 0);

  /** A 3-tap blur of stride 2 and dilation 2 over rows of 19, padded by 2 inside the sum. */
  private record Blur(Tensor x, Tensor y) {
    static Blur make(int lo, int hi) {
      Tensor x = placeholder("X", FLOAT32, 3, 19);
      IterVar k = reduceAxis(3, "k");
      Tensor y =
          compute(
              "Blur",
              shape(3, 10),
              (r, i) -> {
                Expr at = i.mul(2).add(k.var().mul(2)).sub(2);
                return sum(
                    select(at.ge(lo).and(at.lt(hi)), x.at(r, at), 0.0)
                        .mul(cast(FLOAT32, k.var().add(1))),
                    k);
              });
      return new Blur(x, y);
    }
  }

  @Test
  void aPaddedCopyReplacesTheSelect() {
    Blur b = Blur.make(0, 19);
    Schedule s = Schedule.create(b.y());
    Tensor p = s.pad(b.x(), new long[] {0, 2}, new long[] {0, 2}, ZERO, b.y());
    assertThat(p.shape().get(1)).isEqualTo(shape(23).get(0));
    assertThat(selects(s.stage(b.y()).body())).isZero();
    assertThat(reads(s.stage(b.y()).body(), p)).isOne();
    Check.check(s, Map.of());
    // The copy computed per row of the output, as the CPU rules place it.
    s.stage(p).computeAt(s.stage(b.y()), s.stage(b.y()).axis(0));
    Check.check(s, Map.of());
  }

  @Test
  void aSelectThatTestsMoreThanTheBoundsStays() {
    // at >= 1 is not x's lower bound: the select stays, reading the copy.
    Blur b = Blur.make(1, 19);
    Schedule s = Schedule.create(b.y());
    Tensor p = s.pad(b.x(), new long[] {0, 2}, new long[] {0, 2}, ZERO, b.y());
    assertThat(selects(s.stage(b.y()).body())).isOne();
    assertThat(reads(s.stage(b.y()).body(), p)).isOne();
    Check.check(s, Map.of());
  }

  @Test
  void boundsTestsRearrangedAreRecognized() {
    Tensor x = placeholder("X", FLOAT32, 4, 11);
    IterVar k = reduceAxis(3, "k");
    // j + k - 1 >= 0 as j + k >= 1, j + k - 1 < 11 as 11 > j + k - 1, written the other way.
    Tensor y =
        compute(
            "Y",
            shape(4, 11),
            (r, j) ->
                sum(
                    select(
                        j.add(k.var()).ge(1).and(shape(11).get(0).gt(j.add(k.var()).sub(1))),
                        x.at(r, j.add(k.var()).sub(1)),
                        0.0),
                    k));
    Schedule s = Schedule.create(y);
    s.pad(x, new long[] {0, 1}, new long[] {0, 1}, ZERO, y);
    assertThat(selects(s.stage(y).body())).isZero();
    Check.check(s, Map.of());
  }

  @Test
  void badPaddingIsAnErrorNamingTheTensor() {
    Blur b = Blur.make(0, 19);
    Schedule s = Schedule.create(b.y());
    assertThatThrownBy(() -> s.pad(b.x(), new long[] {0, -1}, new long[] {0, 2}, ZERO, b.y()))
        .isInstanceOf(UserError.class)
        .hasMessageContaining("pad of 'X': negative padding");
    assertThatThrownBy(() -> s.pad(b.x(), new long[] {2}, new long[] {2}, ZERO, b.y()))
        .isInstanceOf(UserError.class)
        .hasMessageContaining("2 axes, padding given for 1 and 1");
    assertThatThrownBy(() -> s.pad(b.x(), new long[] {0, 2}, new long[] {0, 2}, ZERO))
        .isInstanceOf(UserError.class)
        .hasMessageContaining("pad of 'X' needs at least one reader");
    Var v = var("v");
    assertThatThrownBy(() -> s.pad(b.x(), new long[] {0, 2}, new long[] {0, 2}, v, b.y()))
        .isInstanceOf(UserError.class)
        .hasMessageContaining("pad of 'X': the padding value v varies with [v]");
    Tensor other = placeholder("Other", FLOAT32, 3);
    Tensor z = compute("Z", shape(3), i -> other.at(i).add(1.0));
    Schedule s2 = Schedule.create(b.y(), z);
    assertThatThrownBy(() -> s2.pad(b.x(), new long[] {0, 2}, new long[] {0, 2}, ZERO, z))
        .isInstanceOf(UserError.class)
        .hasMessageContaining("for reader 'Z', which does not read it");
  }

  private static int selects(Expr e) {
    int[] n = {0};
    new ExprVisitor() {
      @Override
      public void visit(Expr x) {
        n[0] += x instanceof Select ? 1 : 0;
        super.visit(x);
      }
    }.visit(e);
    return n[0];
  }

  private static int reads(Expr e, Tensor t) {
    int[] n = {0};
    new ExprVisitor() {
      @Override
      public void visit(Expr x) {
        n[0] += x instanceof TensorRead r && r.tensor() == t ? 1 : 0;
        super.visit(x);
      }
    }.visit(e);
    return n[0];
  }
}
