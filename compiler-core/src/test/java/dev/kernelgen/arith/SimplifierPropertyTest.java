package dev.kernelgen.arith;

import static org.assertj.core.api.Assertions.assertThat;

import dev.kernelgen.te.BinOp;
import dev.kernelgen.te.Binary;
import dev.kernelgen.te.Expr;
import dev.kernelgen.te.IntImm;
import dev.kernelgen.te.Not;
import dev.kernelgen.te.Select;
import dev.kernelgen.te.Var;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;

/**
 * Random integer expressions over a few bounded variables: the simplified expression must have the
 * original's value at random points within the bounds, and {@code bound()} must hold that value.
 */
class SimplifierPropertyTest {
  private static final List<Var> VARS = List.of(new Var("x"), new Var("y"), new Var("z"));
  private static final List<ConstIntBound> BOUNDS =
      List.of(new ConstIntBound(0, 15), new ConstIntBound(-8, 8), new ConstIntBound(0, 3));

  /** A seed per case: the expression and the evaluation points are drawn from it. */
  @Provide
  Arbitrary<Long> seeds() {
    return Arbitraries.longs();
  }

  @Property(tries = 600)
  void simplifiedEqualsOriginalAndBoundHolds(@ForAll("seeds") long seed) {
    Random rnd = new Random(seed);
    Expr e = intExpr(rnd, 4);
    Map<Var, ConstIntBound> bounds = new HashMap<>();
    for (int k = 0; k < VARS.size(); k++) {
      bounds.put(VARS.get(k), BOUNDS.get(k));
    }
    Expr s = Simplifier.simplify(e, bounds);
    ConstIntBound b = Simplifier.bound(e, bounds);
    for (int p = 0; p < 20; p++) {
      Map<Var, Long> env = new HashMap<>();
      for (int k = 0; k < VARS.size(); k++) {
        ConstIntBound vb = BOUNDS.get(k);
        env.put(VARS.get(k), vb.min() + rnd.nextInt((int) (vb.max() - vb.min() + 1)));
      }
      Long want = eval(e, env);
      if (want == null) {
        continue; // division by zero somewhere: no value to compare
      }
      Long got = eval(s, env);
      assertThat(got)
          .withFailMessage(
              "at %s%n  input:      %s = %s%n  simplified: %s = %s",
              env, e.show(), want, s.show(), got)
          .isEqualTo(want);
      assertThat(b.contains(want))
          .withFailMessage("at %s: %s = %d is outside %s", env, e.show(), want, b)
          .isTrue();
    }
    // Simplifying again changes nothing.
    assertThat(Simplifier.simplify(s, bounds).show()).isEqualTo(s.show());
  }

  @Property(tries = 300)
  void provedConditionsHold(@ForAll("seeds") long seed) {
    Random rnd = new Random(seed);
    Expr cond = boolExpr(rnd, 3);
    Map<Var, ConstIntBound> bounds = new HashMap<>();
    for (int k = 0; k < VARS.size(); k++) {
      bounds.put(VARS.get(k), BOUNDS.get(k));
    }
    Expr s = Simplifier.simplify(cond, bounds);
    boolean proved = Simplifier.canProve(cond, bounds);
    for (int p = 0; p < 20; p++) {
      Map<Var, Long> env = new HashMap<>();
      for (int k = 0; k < VARS.size(); k++) {
        ConstIntBound vb = BOUNDS.get(k);
        env.put(VARS.get(k), vb.min() + rnd.nextInt((int) (vb.max() - vb.min() + 1)));
      }
      Long want = eval(cond, env);
      if (want == null) {
        continue;
      }
      assertThat(eval(s, env))
          .withFailMessage("at %s: %s simplified to %s", env, cond.show(), s.show())
          .isEqualTo(want);
      if (proved) {
        assertThat(want).withFailMessage("proved %s, false at %s", cond.show(), env).isEqualTo(1L);
      }
    }
  }

  private static Expr intExpr(Random rnd, int depth) {
    if (depth == 0 || rnd.nextInt(4) == 0) {
      return rnd.nextBoolean()
          ? VARS.get(rnd.nextInt(VARS.size()))
          : IntImm.of(rnd.nextInt(19) - 6);
    }
    Expr a = intExpr(rnd, depth - 1);
    return switch (rnd.nextInt(11)) {
      case 0, 1 -> a.add(intExpr(rnd, depth - 1));
      case 2, 3 -> a.sub(intExpr(rnd, depth - 1));
      case 4 -> a.mul(intExpr(rnd, depth - 1));
      case 5 -> a.mul(rnd.nextInt(9) - 2);
      case 6 -> a.floordiv(positiveDivisor(rnd));
      case 7 -> a.floormod(positiveDivisor(rnd));
      case 8 -> a.min(intExpr(rnd, depth - 1));
      case 9 -> a.max(intExpr(rnd, depth - 1));
      default -> new Select(boolExpr(rnd, depth - 1), a, intExpr(rnd, depth - 1));
    };
  }

  private static long positiveDivisor(Random rnd) {
    return new long[] {1, 2, 3, 4, 8, 16}[rnd.nextInt(6)];
  }

  private static Expr boolExpr(Random rnd, int depth) {
    if (depth > 0 && rnd.nextInt(3) == 0) {
      Expr a = boolExpr(rnd, depth - 1);
      return switch (rnd.nextInt(3)) {
        case 0 -> a.and(boolExpr(rnd, depth - 1));
        case 1 -> a.or(boolExpr(rnd, depth - 1));
        default -> Not.of(a);
      };
    }
    BinOp[] cmps = {BinOp.EQ, BinOp.NE, BinOp.LT, BinOp.LE, BinOp.GT, BinOp.GE};
    int d = Math.max(depth - 1, 0);
    return Binary.of(cmps[rnd.nextInt(cmps.length)], intExpr(rnd, d), intExpr(rnd, d));
  }

  /** Exact value (longs never overflow at these sizes); null on a division by zero. */
  static Long eval(Expr e, Map<Var, Long> env) {
    return switch (e) {
      case IntImm i -> i.value();
      case Var v -> env.get(v);
      case Not n -> {
        Long a = eval(n.a(), env);
        yield a == null ? null : 1 - a;
      }
      case Select s -> {
        Long c = eval(s.cond(), env);
        Long t = eval(s.trueValue(), env);
        Long f = eval(s.falseValue(), env);
        // Both branches may be evaluated, so either failing makes the select undefined.
        yield c == null || t == null || f == null ? null : c != 0 ? t : f;
      }
      case Binary b -> {
        Long x = eval(b.a(), env);
        Long y = eval(b.b(), env);
        if (x == null || y == null) {
          yield null;
        }
        yield switch (b.op()) {
          case ADD -> x + y;
          case SUB -> x - y;
          case MUL -> x * y;
          case FLOOR_DIV -> y == 0 ? null : Math.floorDiv(x, y);
          case FLOOR_MOD -> y == 0 ? null : Math.floorMod(x, y);
          case MIN -> Math.min(x, y);
          case MAX -> Math.max(x, y);
          case EQ -> x.equals(y) ? 1L : 0L;
          case NE -> !x.equals(y) ? 1L : 0L;
          case LT -> x < y ? 1L : 0L;
          case LE -> x <= y ? 1L : 0L;
          case GT -> x > y ? 1L : 0L;
          case GE -> x >= y ? 1L : 0L;
          case AND -> x != 0 && y != 0 ? 1L : 0L;
          case OR -> x != 0 || y != 0 ? 1L : 0L;
          case DIV -> throw new AssertionError("float division in an integer test");
        };
      }
      default -> throw new AssertionError("not generated: " + e.show());
    };
  }
}
