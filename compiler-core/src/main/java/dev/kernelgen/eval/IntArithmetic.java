package dev.kernelgen.eval;

import dev.kernelgen.te.Expr;

/**
 * The integer nodes of {@link ExprCompiler} that are not linear forms ({@link LinearIndex}), built
 * from compiled operands: int32 results wrap as Java ints do, int64 as longs; {@code floordiv} and
 * {@code floormod} round toward negative infinity.
 */
final class IntArithmetic {
  private IntArithmetic() {}

  /** A product of two non-constant operands (products with constants are linear forms). */
  static LongNode mul(LongNode a, LongNode b, boolean w) {
    return w
        ? new LongNode() {
          @Override
          long eval(Frame f) {
            return (int) (a.eval(f) * b.eval(f));
          }
        }
        : new LongNode() {
          @Override
          long eval(Frame f) {
            return a.eval(f) * b.eval(f);
          }
        };
  }

  static LongNode floorDiv(LongNode a, LongNode b, boolean w, Expr e) {
    if (b instanceof LongNode.Const k && k.value > 0) {
      long c = k.value;
      return new LongNode() {
        @Override
        long eval(Frame f) {
          return Math.floorDiv(a.eval(f), c);
        }
      };
    }
    String text = e.show();
    return new LongNode() {
      @Override
      long eval(Frame f) {
        long y = b.eval(f);
        if (y == 0) {
          throw new ArithmeticException("division by zero in " + text);
        }
        long q = Math.floorDiv(a.eval(f), y);
        return w ? (int) q : q;
      }
    };
  }

  static LongNode floorMod(LongNode a, LongNode b, Expr e) {
    if (b instanceof LongNode.Const k && k.value > 0) {
      long c = k.value;
      return new LongNode() {
        @Override
        long eval(Frame f) {
          return Math.floorMod(a.eval(f), c);
        }
      };
    }
    String text = e.show();
    return new LongNode() {
      @Override
      long eval(Frame f) {
        long y = b.eval(f);
        if (y == 0) {
          throw new ArithmeticException("modulo by zero in " + text);
        }
        return Math.floorMod(a.eval(f), y);
      }
    };
  }

  static LongNode min(LongNode a, LongNode b) {
    return new LongNode() {
      @Override
      long eval(Frame f) {
        return Math.min(a.eval(f), b.eval(f));
      }
    };
  }

  static LongNode max(LongNode a, LongNode b) {
    return new LongNode() {
      @Override
      long eval(Frame f) {
        return Math.max(a.eval(f), b.eval(f));
      }
    };
  }

  /** A float truncated toward zero as C does (and saturated where C is undefined). */
  static LongNode truncate(DoubleNode v, boolean to32) {
    return to32
        ? new LongNode() {
          @Override
          long eval(Frame f) {
            return (int) v.eval(f);
          }
        }
        : new LongNode() {
          @Override
          long eval(Frame f) {
            return (long) v.eval(f);
          }
        };
  }

  /** An int64 narrowed to int32. */
  static LongNode wrap32(LongNode v) {
    return new LongNode() {
      @Override
      long eval(Frame f) {
        return (int) v.eval(f);
      }
    };
  }
}
