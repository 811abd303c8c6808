package dev.kernelgen.eval;

import dev.kernelgen.diag.CompilerBug;
import dev.kernelgen.te.BinOp;
import dev.kernelgen.te.Expr;

/**
 * The comparison and logical nodes of {@link ExprCompiler}, built from compiled operands: one node
 * class per operator (and per operand kind: floating-point, integer, integer against a constant),
 * so that evaluating a condition is one virtual call and no switch.
 */
final class Comparisons {
  private Comparisons() {}

  /** {@code a op b} over floating-point operands; {@code e} names the expression in errors. */
  static BoolNode floats(BinOp op, DoubleNode a, DoubleNode b, Expr e) {
    return switch (op) {
      case EQ ->
          new BoolNode() {
            @Override
            boolean eval(Frame f) {
              return a.eval(f) == b.eval(f);
            }
          };
      case NE ->
          new BoolNode() {
            @Override
            boolean eval(Frame f) {
              return a.eval(f) != b.eval(f);
            }
          };
      case LT ->
          new BoolNode() {
            @Override
            boolean eval(Frame f) {
              return a.eval(f) < b.eval(f);
            }
          };
      case LE ->
          new BoolNode() {
            @Override
            boolean eval(Frame f) {
              return a.eval(f) <= b.eval(f);
            }
          };
      case GT ->
          new BoolNode() {
            @Override
            boolean eval(Frame f) {
              return a.eval(f) > b.eval(f);
            }
          };
      case GE ->
          new BoolNode() {
            @Override
            boolean eval(Frame f) {
              return a.eval(f) >= b.eval(f);
            }
          };
      default -> throw new CompilerBug("comparison " + op + ": " + e.show());
    };
  }

  /** {@code a op c} for an integer constant {@code c}. */
  static BoolNode intWithConstant(BinOp op, LongNode a, long c, Expr e) {
    return switch (op) {
      case EQ ->
          new BoolNode() {
            @Override
            boolean eval(Frame f) {
              return a.eval(f) == c;
            }
          };
      case NE ->
          new BoolNode() {
            @Override
            boolean eval(Frame f) {
              return a.eval(f) != c;
            }
          };
      case LT ->
          new BoolNode() {
            @Override
            boolean eval(Frame f) {
              return a.eval(f) < c;
            }
          };
      case LE ->
          new BoolNode() {
            @Override
            boolean eval(Frame f) {
              return a.eval(f) <= c;
            }
          };
      case GT ->
          new BoolNode() {
            @Override
            boolean eval(Frame f) {
              return a.eval(f) > c;
            }
          };
      case GE ->
          new BoolNode() {
            @Override
            boolean eval(Frame f) {
              return a.eval(f) >= c;
            }
          };
      default -> throw new CompilerBug("comparison " + op + ": " + e.show());
    };
  }

  /** {@code a op b} over integer operands. */
  static BoolNode ints(BinOp op, LongNode a, LongNode b, Expr e) {
    return switch (op) {
      case EQ ->
          new BoolNode() {
            @Override
            boolean eval(Frame f) {
              return a.eval(f) == b.eval(f);
            }
          };
      case NE ->
          new BoolNode() {
            @Override
            boolean eval(Frame f) {
              return a.eval(f) != b.eval(f);
            }
          };
      case LT ->
          new BoolNode() {
            @Override
            boolean eval(Frame f) {
              return a.eval(f) < b.eval(f);
            }
          };
      case LE ->
          new BoolNode() {
            @Override
            boolean eval(Frame f) {
              return a.eval(f) <= b.eval(f);
            }
          };
      case GT ->
          new BoolNode() {
            @Override
            boolean eval(Frame f) {
              return a.eval(f) > b.eval(f);
            }
          };
      case GE ->
          new BoolNode() {
            @Override
            boolean eval(Frame f) {
              return a.eval(f) >= b.eval(f);
            }
          };
      default -> throw new CompilerBug("comparison " + op + ": " + e.show());
    };
  }

  /** True where {@code v} is not zero. */
  static BoolNode nonZero(LongNode v) {
    return new BoolNode() {
      @Override
      boolean eval(Frame f) {
        return v.eval(f) != 0;
      }
    };
  }

  /** {@code a && b} or {@code a || b}, short-circuited with constants as C does. */
  static BoolNode logical(boolean isAnd, BoolNode a, BoolNode b) {
    // Short-circuit with constants as C does: `true && x` is x.
    if (a instanceof BoolNode.Const k) {
      return k.value == isAnd ? b : a;
    }
    if (b instanceof BoolNode.Const k && k.value == isAnd) {
      return a;
    }
    return isAnd
        ? new BoolNode() {
          @Override
          boolean eval(Frame f) {
            return a.eval(f) && b.eval(f);
          }
        }
        : new BoolNode() {
          @Override
          boolean eval(Frame f) {
            return a.eval(f) || b.eval(f);
          }
        };
  }
}
