package dev.kernelgen.tune.features;

import dev.kernelgen.te.Binary;
import dev.kernelgen.te.Cast;
import dev.kernelgen.te.Expr;
import dev.kernelgen.te.IntImm;
import dev.kernelgen.te.Select;
import dev.kernelgen.te.Var;
import java.util.Map;

/**
 * Evaluates an integer index expression at a point (variables not given are 0, a let-bound variable
 * is its value), which gives an access's stride along a loop as the difference of two points. Not
 * an affine analysis: a {@code floordiv} or {@code floormod} index has the stride of its first
 * step.
 */
final class IndexStride {
  private IndexStride() {}

  /** The index's change when {@code v} goes from 0 to 1, everything else 0. */
  static long stride(Expr index, Var v, Map<Var, Expr> lets) {
    return eval(index, v, 1, lets, 0) - eval(index, v, 0, lets, 0);
  }

  /** The value of {@code e} with {@code v = at} and every other free variable 0. */
  static long eval(Expr e, Var v, long at, Map<Var, Expr> lets, int depth) {
    if (depth > 64) {
      return 0;
    }
    return switch (e) {
      case IntImm i -> i.value();
      case Var x when x == v -> at;
      case Var x -> lets.containsKey(x) ? eval(lets.get(x), v, at, lets, depth + 1) : 0;
      case Cast c -> c.value().dtype().isFloat() ? 0 : eval(c.value(), v, at, lets, depth + 1);
      case Select s ->
          eval(s.cond(), v, at, lets, depth + 1) != 0
              ? eval(s.trueValue(), v, at, lets, depth + 1)
              : eval(s.falseValue(), v, at, lets, depth + 1);
      case Binary b -> {
        long x = eval(b.a(), v, at, lets, depth + 1);
        long y = eval(b.b(), v, at, lets, depth + 1);
        yield switch (b.op()) {
          case ADD -> x + y;
          case SUB -> x - y;
          case MUL -> x * y;
          case DIV -> y == 0 ? 0 : x / y;
          case FLOOR_DIV -> y == 0 ? 0 : Math.floorDiv(x, y);
          case FLOOR_MOD -> y == 0 ? 0 : Math.floorMod(x, y);
          case MIN -> Math.min(x, y);
          case MAX -> Math.max(x, y);
          case EQ -> x == y ? 1 : 0;
          case NE -> x != y ? 1 : 0;
          case LT -> x < y ? 1 : 0;
          case LE -> x <= y ? 1 : 0;
          case GT -> x > y ? 1 : 0;
          case GE -> x >= y ? 1 : 0;
          case AND -> x != 0 && y != 0 ? 1 : 0;
          case OR -> x != 0 || y != 0 ? 1 : 0;
        };
      }
      default -> 0;
    };
  }
}
