package dev.kernelgen.arith;

import static org.assertj.core.api.Assertions.assertThat;

import dev.kernelgen.te.BinOp;
import dev.kernelgen.te.Binary;
import dev.kernelgen.te.Cast;
import dev.kernelgen.te.DType;
import dev.kernelgen.te.Expr;
import dev.kernelgen.te.FloatImm;
import dev.kernelgen.te.IntImm;
import dev.kernelgen.te.Not;
import dev.kernelgen.te.Select;
import dev.kernelgen.te.Var;
import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;

class SimplifierTest {
  private final Var x = new Var("x");
  private final Var y = new Var("y");
  private final Var z = new Var("z");
  private final Var i = new Var("i");
  private final Var j = new Var("j");
  private final Var io = new Var("i.outer");
  private final Var ii = new Var("i.inner");
  private final Var n = new Var("n");
  private final Var b = new Var("b", DType.BOOL);
  private final Var c = new Var("c", DType.BOOL);
  private final Var f = new Var("f", DType.FLOAT32);
  private final Map<Var, ConstIntBound> bounds = new HashMap<>();

  private static Expr c(long v) {
    return IntImm.of(v);
  }

  private static Expr t() {
    return IntImm.ofBool(true);
  }

  private static Expr fls() {
    return IntImm.ofBool(false);
  }

  private void bound(Var v, long min, long max) {
    bounds.put(v, new ConstIntBound(min, max));
  }

  /** Simplifies {@code input} with the bounds set so far; compares printed forms. */
  private void check(Expr input, Expr expected) {
    check(input, expected.show());
  }

  private void check(Expr input, String expected) {
    Expr out = Simplifier.simplify(input, bounds);
    assertThat(out.show())
        .withFailMessage(
            "simplify%n  input:    %s%n  output:   %s%n  expected: %s%n  bounds:   %s",
            input.show(), out.show(), expected, bounds)
        .isEqualTo(expected);
    // The result is a fixed point.
    Expr again = Simplifier.simplify(out, bounds);
    assertThat(again.show())
        .withFailMessage("not idempotent: %s -> %s", out.show(), again.show())
        .isEqualTo(out.show());
  }

  // ---- constant folding ----

  @Test
  void foldsIntegerArithmetic() {
    check(c(3).add(c(4)), c(7));
    check(c(3).sub(c(10)), c(-7));
    check(c(6).mul(c(7)), c(42));
    check(c(7).floordiv(c(2)), c(3));
    check(c(-7).floordiv(c(2)), c(-4));
    check(c(-7).floormod(c(2)), c(1));
    check(c(7).floormod(c(-2)), c(-1));
    check(c(7).floordiv(c(-2)), c(-4));
    check(c(3).min(c(-1)), c(-1));
    check(c(3).max(c(-1)), c(3));
  }

  @Test
  void doesNotFoldOverflowOrDivisionByZero() {
    Expr big = c(Integer.MAX_VALUE).add(c(1));
    check(big, "(2147483647 + 1)");
    check(c(5).floordiv(c(0)), "floordiv(5, 0)");
    check(c(5).floormod(c(0)), "floormod(5, 0)");
    Expr big64 = IntImm.of(DType.INT64, Integer.MAX_VALUE).add(IntImm.of(DType.INT64, 1));
    check(big64, "2147483648L");
    Expr huge = IntImm.of(DType.INT64, Long.MAX_VALUE).add(IntImm.of(DType.INT64, 1));
    check(huge, "(9223372036854775807L + 1L)");
  }

  @Test
  void foldsComparisonsLogicAndSelect() {
    check(c(3).lt(c(4)), t());
    check(c(3).ge(c(4)), fls());
    check(c(3).eq(c(3)), t());
    check(c(3).ne(c(3)), fls());
    check(t().and(fls()), fls());
    check(t().or(fls()), t());
    check(Not.of(fls()), t());
    check(b.and(t()), b);
    check(b.and(fls()), fls());
    check(b.or(t()), t());
    check(b.or(fls()), b);
    check(b.and(b), b);
    check(b.and(Not.of(b)), fls());
    check(b.or(Not.of(b)), t());
    check(Not.of(Not.of(b)), b);
    check(Not.of(x.lt(y)), x.ge(y));
    check(new Select(t(), x, y), x);
    check(new Select(c(1).gt(c(2)), x, y), y);
    check(new Select(b, x.add(1).sub(1), x), x);
    check(new Select(b.and(c), x.add(0), y), new Select(b.and(c), x, y));
  }

  @Test
  void foldsFloatsAndCasts() {
    check(FloatImm.f32(1.5).add(FloatImm.f32(2.25)), FloatImm.f32(3.75));
    check(FloatImm.f64(1.0).div(FloatImm.f64(4.0)), FloatImm.f64(0.25));
    // float32 arithmetic rounds: 0.1f + 0.2f is not the double 0.3.
    Expr sum = Simplifier.simplify(FloatImm.f32(0.1f).add(FloatImm.f32(0.2f)));
    assertThat(((FloatImm) sum).value()).isEqualTo((double) (0.1f + 0.2f));
    check(FloatImm.f32(1).lt(FloatImm.f32(2)), t());
    check(f.mul(FloatImm.f32(1)), f);
    check(f.add(FloatImm.f32(0)), "(f + 0.0f)");
    check(new Cast(DType.INT64, c(5)), IntImm.of(DType.INT64, 5));
    check(new Cast(DType.INT32, IntImm.of(DType.INT64, 1L << 32 | 3)), c(3));
    check(new Cast(DType.FLOAT32, c(3)), FloatImm.f32(3));
    check(new Cast(DType.INT32, FloatImm.f32(-2.7)), c(-2));
    check(new Cast(DType.INT32, FloatImm.f64(1e12)), "int32(1.0E12)");
    check(new Cast(DType.BOOL, c(2)), t());
    check(new Cast(DType.INT64, x.add(0)), new Cast(DType.INT64, x));
  }

  // ---- canonical linear form ----

  @Test
  void cancelsTermsInLinearForm() {
    check(i.mul(8).add(j).sub(i.mul(8)), j);
    check(x.add(1).sub(1), x);
    check(x.add(y).sub(y.add(x)), c(0));
    check(io.mul(8).add(ii).sub(io.mul(8)), ii);
    check(x.mul(2).add(x.mul(3)), x.mul(5));
    check(x.add(1).mul(4).sub(x.mul(4)), c(4));
    check(x.mul(0), c(0));
    check(c(0).add(x), x);
    check(x.mul(1), x);
  }

  @Test
  void printsInStableOrder() {
    check(c(3).add(y).add(x), y.add(x).add(3));
    check(x.sub(y).sub(5), x.sub(y).sub(5));
    check(c(7).sub(i), c(7).sub(i));
    check(c(0).sub(i), "(0 - i)");
    check(c(0).sub(i.mul(2)), "(i * -2)");
    check(c(0).sub(i).add(j), j.sub(i));
    check(io.mul(8).add(ii).add(1).sub(2), io.mul(8).add(ii).sub(1));
  }

  @Test
  void keepsNonLinearTermsAsUnits() {
    check(x.mul(y).add(1).sub(y.mul(x)), "(((x * y) - (y * x)) + 1)");
    check(x.mul(y).add(x.add(0).mul(y)), x.mul(y).mul(2));
    check(x.add(1).mul(y.add(2)), x.add(1).mul(y.add(2)));
  }

  @Test
  void keepsSumsWhoseConstantsOverflowInt32() {
    check(x.add(Integer.MAX_VALUE).add(1), "((x + 2147483647) + 1)");
    check(x.mul(65536).mul(65536), "((x * 65536) * 65536)");
    check(x.add(Integer.MAX_VALUE).sub(1), x.add(Integer.MAX_VALUE - 1));
  }

  @Test
  @org.junit.jupiter.api.Timeout(10)
  void handlesLargeExpressions() {
    Var[] vs = new Var[100];
    Expr sum = c(0);
    for (int k = 0; k < vs.length; k++) {
      vs[k] = new Var("v" + k);
      sum = sum.add(vs[k].mul(k + 1));
    }
    Expr diff = sum;
    for (int k = vs.length - 1; k >= 0; k--) {
      diff = diff.sub(vs[k].mul(k + 1));
    }
    check(diff, c(0));
    Expr nested = x;
    for (int k = 0; k < 60; k++) {
      nested = nested.add(1).floordiv(2).min(y.add(k)).max(c(-k));
    }
    assertThat(Simplifier.simplify(nested)).isNotNull();
  }

  @Test
  void worksOnInt64() {
    Var l = new Var("l", DType.INT64);
    Expr e = l.add(IntImm.of(DType.INT64, 4)).sub(l);
    check(e, IntImm.of(DType.INT64, 4));
    // A coefficient beyond int32 is fine for int64.
    check(l.mul(IntImm.of(DType.INT64, 1L << 33)).sub(l), "(l * 8589934591L)");
  }

  // ---- floor division and modulo ----

  @Test
  void dividesOutMultiples() {
    check(x.mul(8).add(y).floordiv(8), x.add(y.floordiv(8)));
    check(x.mul(8).add(y).floormod(8), y.floormod(8));
    check(x.mul(8).floordiv(4), x.mul(2));
    check(x.mul(8).floormod(4), c(0));
    check(x.mul(4).floordiv(8), x.floordiv(2));
    check(x.mul(4).floormod(8), x.floormod(2).mul(4));
    check(x.floordiv(1), x);
    check(x.floormod(1), c(0));
    check(c(0).floordiv(x), c(0));
  }

  @Test
  void keepsTheBaseOfAnOffsetFromAMultiple() {
    // The elements after the first of a group of 4 (an unrolled vector of a fetch) keep its base.
    check(x.mul(4).add(1).floordiv(8), x.floordiv(2));
    check(x.mul(4).add(3).floormod(8), x.floormod(2).mul(4).add(3));
    check(x.mul(4).add(2).floormod(8), x.floormod(2).mul(4).add(2));
    check(x.mul(4).add(y.mul(8)).add(5).floordiv(16), x.add(y.mul(2)).add(1).floordiv(4));
    // Negative offsets: floor semantics, -1 = 4 * (-1) + 3.
    check(x.mul(4).sub(1).floordiv(8), x.sub(1).floordiv(2));
    check(x.mul(4).sub(1).floormod(8), x.sub(1).floormod(2).mul(4).add(3));
    // Not a common factor that divides the divisor: unchanged.
    check(x.mul(3).add(1).floordiv(8), x.mul(3).add(1).floordiv(8));
  }

  @Test
  void usesBoundsInDivision() {
    bound(y, 0, 7);
    check(y.floordiv(8), c(0));
    check(y.floormod(8), y);
    check(x.mul(8).add(y).floordiv(8), x);
    check(x.mul(8).add(y).floormod(8), y);
    check(x.mul(8).add(y).add(8).floordiv(8), x.add(1));
    check(y.add(8).floormod(8), y);
    check(y.add(1).floordiv(8), y.add(1).floordiv(8));
    bound(io, 0, 3);
    bound(ii, 0, 7);
    check(io.mul(8).add(ii).floordiv(8), io);
    check(io.mul(8).add(ii).floormod(8), ii);
    check(io.mul(8).add(ii).floordiv(32), c(0));
    check(io.mul(8).add(ii).floordiv(2), io.mul(4).add(ii.floordiv(2)));
  }

  @Test
  void mergesNestedDivisionAndModulo() {
    check(x.floordiv(4).floordiv(8), x.floordiv(32));
    check(x.floormod(16).floormod(4), x.floormod(4));
    // floormod(x, 4) is within [0, 3]: the outer modulo by 16 does nothing.
    check(x.floormod(4).floormod(16), x.floormod(4));
    check(x.floormod(16).floormod(6), x.floormod(16).floormod(6));
    check(x.floordiv(4).floormod(8), x.floordiv(4).floormod(8));
  }

  @Test
  void undoesSplitOfFusedIndex() {
    Expr fused = i.mul(12).add(j);
    check(fused.floordiv(4).mul(4).add(fused.floormod(4)), fused);
    check(x.floordiv(16).mul(32).add(x.floormod(16).mul(2)), x.mul(2));
  }

  @Test
  void undoesSplitOfFusedIndexIntoSeveralAxes() {
    // A [*, 8, 3, 3] tile loaded through one fused loop index: its flat offset is the index.
    Expr fused = i.mul(28).add(j);
    Expr flat =
        fused
            .floordiv(72)
            .mul(72)
            .add(fused.floordiv(9).floormod(8).mul(9))
            .add(fused.floordiv(3).floormod(3).mul(3))
            .add(fused.floormod(3));
    check(flat, fused);
    // The same in a [*, C, 3, 3] source with C = 64: the three inner axes merge, the outer not.
    Expr source =
        fused
            .floordiv(72)
            .mul(576)
            .add(fused.floordiv(9).floormod(8).mul(9))
            .add(fused.floordiv(3).floormod(3).mul(3))
            .add(fused.floormod(3));
    check(source, fused.floordiv(72).mul(576).add(fused.floormod(72)));
    // Strides that are not the inner extents: nothing to merge.
    Expr strided = x.floordiv(30).floormod(10).mul(56).add(x.floormod(30));
    check(strided, strided);
    // Within one period of 9 the merged modulo is the index itself.
    bound(x, 0, 8);
    check(x.floordiv(3).floormod(3).mul(3).add(x.floormod(3)), x);
  }

  // ---- min and max ----

  @Test
  void simplifiesMinMax() {
    check(x.min(x), x);
    check(x.add(1).max(x.add(1)), x.add(1));
    check(x.min(x.add(1)), x.show());
    check(x.max(x.add(1)), x.add(1));
    check(x.min(y), x.min(y));
    bound(x, 0, 10);
    bound(y, 20, 30);
    check(x.min(y), x);
    check(x.max(y), y);
    check(x.mul(2).max(c(0)), x.mul(2));
    check(z.min(c(8)).min(c(4)), z.min(c(4)));
  }

  @Test
  void provesEmptyPartitionsThroughMinMaxTerms() {
    // The extent of a loop that partitioning leaves after a middle that ends where the loop does:
    // the term-by-term bound of min(w, 64) - max(min(w, 64), 0) is [-inf, 64], but the term
    // max(min(w, 64), 0) is at least min(w, 64), so the difference is at most 0.
    Expr w = n.sub(io.mul(64));
    Expr end = w.min(c(64)).max(c(0));
    check(c(64).min(w).sub(end).max(c(0)), "0");
    check(c(64).min(w).le(end), t());
    // The operands of a constant first and last are one term.
    check(c(64).min(w).sub(w.min(c(64))), "0");
    // Nested constants merge with the constant on either side (found by SimplifierPropertyTest).
    check(c(2).max(w.max(c(0))), w.max(c(2)));
    // The other way round it is at least 0, so its max with 0 is itself.
    check(end.sub(w.min(c(64))).max(c(0)), end.sub(w.min(c(64))));
    // Not where it does not hold (i.outer unbounded).
    Expr open = w.min(c(64)).sub(n.max(c(0))).max(c(0));
    check(open, open);
  }

  // ---- comparisons ----

  @Test
  void decidesComparisonsWithBounds() {
    bound(i, 0, 15);
    check(i.lt(16), t());
    check(i.lt(15), i.lt(15));
    check(i.ge(0), t());
    check(i.gt(15), fls());
    check(i.eq(16), fls());
    check(i.ne(c(-1)), t());
    bound(io, 0, 3);
    bound(ii, 0, 7);
    check(io.mul(8).add(ii).lt(32), t());
    check(io.mul(8).add(ii).lt(31), io.mul(8).add(ii).lt(31));
    check(io.mul(8).add(ii).lt(c(30).sub(1)), io.mul(8).add(ii).lt(29));
    check(i.lt(16).and(io.ge(0)), t());
    check(i.lt(16).and(x.lt(y)), x.lt(y));
    check(i.ge(16).or(x.lt(y)), x.lt(y));
  }

  @Test
  void cancelsCommonTermsInComparisons() {
    check(x.add(y).lt(x.add(5)), y.lt(5));
    check(x.add(1).le(x), fls());
    check(x.le(x), t());
    check(x.eq(x.add(0)), t());
    check(x.add(1).ne(x), t());
    check(x.lt(n.sub(1)), x.add(1).lt(n));
    check(c(8).gt(i), c(8).gt(i));
  }

  @Test
  void canProveUsesBounds() {
    bound(i, 0, 9);
    assertThat(Simplifier.canProve(i.lt(10), bounds)).isTrue();
    assertThat(Simplifier.canProve(i.lt(9), bounds)).isFalse();
    assertThat(Simplifier.canProve(i.mul(3).floordiv(3).eq(i), bounds)).isTrue();
    assertThat(Simplifier.canProve(x.lt(y), bounds)).isFalse();
  }

  // ---- bounds ----

  @Test
  void boundsArithmetic() {
    bound(i, 0, 9);
    bound(j, -3, 4);
    assertThat(Simplifier.bound(i.add(j), bounds)).isEqualTo(new ConstIntBound(-3, 13));
    assertThat(Simplifier.bound(i.sub(j), bounds)).isEqualTo(new ConstIntBound(-4, 12));
    assertThat(Simplifier.bound(i.mul(j), bounds)).isEqualTo(new ConstIntBound(-27, 36));
    assertThat(Simplifier.bound(i.mul(-2), bounds)).isEqualTo(new ConstIntBound(-18, 0));
    assertThat(Simplifier.bound(j.floordiv(2), bounds)).isEqualTo(new ConstIntBound(-2, 2));
    assertThat(Simplifier.bound(j.floormod(3), bounds)).isEqualTo(new ConstIntBound(0, 2));
    assertThat(Simplifier.bound(i.floormod(16), bounds)).isEqualTo(new ConstIntBound(0, 9));
    assertThat(Simplifier.bound(i.min(j), bounds)).isEqualTo(new ConstIntBound(-3, 4));
    assertThat(Simplifier.bound(i.max(j), bounds)).isEqualTo(new ConstIntBound(0, 9));
    assertThat(Simplifier.bound(new Select(b, i, j), bounds)).isEqualTo(new ConstIntBound(-3, 9));
    assertThat(Simplifier.bound(i.sub(i), bounds)).isEqualTo(ConstIntBound.point(0));
    assertThat(Simplifier.bound(new Cast(DType.INT64, i), bounds))
        .isEqualTo(new ConstIntBound(0, 9));
  }

  @Test
  void boundsSaturateAtInfinity() {
    bound(i, 0, 9);
    assertThat(Simplifier.bound(x, bounds)).isEqualTo(ConstIntBound.EVERYTHING);
    assertThat(Simplifier.bound(x.add(i), bounds)).isEqualTo(ConstIntBound.EVERYTHING);
    assertThat(Simplifier.bound(x.floormod(8), bounds)).isEqualTo(new ConstIntBound(0, 7));
    assertThat(Simplifier.bound(x.max(i), bounds))
        .isEqualTo(new ConstIntBound(0, ConstIntBound.POS_INF));
    assertThat(Simplifier.bound(x.floordiv(4), bounds)).isEqualTo(ConstIntBound.EVERYTHING);
    assertThat(Simplifier.bound(i.floordiv(x), bounds)).isEqualTo(ConstIntBound.EVERYTHING);
    bound(y, 1, ConstIntBound.POS_INF);
    assertThat(Simplifier.bound(i.floordiv(y), bounds)).isEqualTo(new ConstIntBound(0, 9));
    // Near-overflowing products saturate instead of wrapping.
    Var l = new Var("l", DType.INT64);
    bounds.put(l, new ConstIntBound(0, Long.MAX_VALUE / 2));
    ConstIntBound big = Simplifier.bound(l.mul(IntImm.of(DType.INT64, 4)), bounds);
    assertThat(big).isEqualTo(new ConstIntBound(0, ConstIntBound.POS_INF));
    ConstIntBound neg = Simplifier.bound(l.mul(IntImm.of(DType.INT64, -4)), bounds);
    assertThat(neg).isEqualTo(new ConstIntBound(ConstIntBound.NEG_INF, 0));
  }

  @Test
  void returnsSameNodeWhenUnchanged() {
    Expr e = x.mul(y).add(z.floordiv(3));
    assertThat(Simplifier.simplify(e)).isSameAs(e);
    Expr cmp = Binary.of(BinOp.LT, x, n);
    assertThat(Simplifier.simplify(cmp)).isSameAs(cmp);
  }
}
