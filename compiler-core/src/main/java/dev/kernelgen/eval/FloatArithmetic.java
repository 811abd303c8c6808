package dev.kernelgen.eval;

import dev.kernelgen.diag.CompilerBug;
import dev.kernelgen.te.BinOp;
import dev.kernelgen.te.Expr;
import dev.kernelgen.te.Intrinsic;

/**
 * The floating-point nodes of {@link ExprCompiler}, built from compiled operands. float32 results
 * are rounded to float after each operation: computing a float op in double and rounding once gives
 * the correctly rounded float result for + - * / and sqrt.
 */
final class FloatArithmetic {
  private FloatArithmetic() {}

  /** {@code a op b}, rounded to float after the operation when {@code f32}. */
  static DoubleNode binary(BinOp op, DoubleNode a, DoubleNode b, boolean f32, Expr e) {
    return switch (op) {
      case ADD ->
          f32
              ? new DoubleNode() {
                @Override
                double eval(Frame f) {
                  return (float) (a.eval(f) + b.eval(f));
                }
              }
              : new DoubleNode() {
                @Override
                double eval(Frame f) {
                  return a.eval(f) + b.eval(f);
                }
              };
      case SUB ->
          f32
              ? new DoubleNode() {
                @Override
                double eval(Frame f) {
                  return (float) (a.eval(f) - b.eval(f));
                }
              }
              : new DoubleNode() {
                @Override
                double eval(Frame f) {
                  return a.eval(f) - b.eval(f);
                }
              };
      case MUL ->
          f32
              ? new DoubleNode() {
                @Override
                double eval(Frame f) {
                  return (float) (a.eval(f) * b.eval(f));
                }
              }
              : new DoubleNode() {
                @Override
                double eval(Frame f) {
                  return a.eval(f) * b.eval(f);
                }
              };
      case DIV ->
          f32
              ? new DoubleNode() {
                @Override
                double eval(Frame f) {
                  return (float) (a.eval(f) / b.eval(f));
                }
              }
              : new DoubleNode() {
                @Override
                double eval(Frame f) {
                  return a.eval(f) / b.eval(f);
                }
              };
      case MIN ->
          new DoubleNode() {
            @Override
            double eval(Frame f) {
              return Math.min(a.eval(f), b.eval(f));
            }
          };
      case MAX ->
          new DoubleNode() {
            @Override
            double eval(Frame f) {
              return Math.max(a.eval(f), b.eval(f));
            }
          };
      default -> throw new CompilerBug("floating-point " + op + ": " + e.show());
    };
  }

  /** Intrinsic {@code fn} of {@code x} (and {@code y}, for pow). */
  static DoubleNode intrinsic(Intrinsic fn, DoubleNode x, DoubleNode y, boolean f32) {
    return switch (fn) {
      case EXP -> unary(x, f32, Math::exp);
      case LOG -> unary(x, f32, Math::log);
      case SQRT -> unary(x, f32, Math::sqrt);
      case TANH -> unary(x, f32, Math::tanh);
      case ABS -> unary(x, false, Math::abs);
      case FLOOR -> unary(x, false, Math::floor);
      case CEIL -> unary(x, false, Math::ceil);
      case POW ->
          f32
              ? new DoubleNode() {
                @Override
                double eval(Frame f) {
                  return (float) Math.pow(x.eval(f), y.eval(f));
                }
              }
              : new DoubleNode() {
                @Override
                double eval(Frame f) {
                  return Math.pow(x.eval(f), y.eval(f));
                }
              };
    };
  }

  static DoubleNode unary(DoubleNode x, boolean round, java.util.function.DoubleUnaryOperator fn) {
    return round
        ? new DoubleNode() {
          @Override
          double eval(Frame f) {
            return (float) fn.applyAsDouble(x.eval(f));
          }
        }
        : new DoubleNode() {
          @Override
          double eval(Frame f) {
            return fn.applyAsDouble(x.eval(f));
          }
        };
  }

  /** {@code v} rounded to float. */
  static DoubleNode roundToFloat(DoubleNode v) {
    return new DoubleNode() {
      @Override
      double eval(Frame f) {
        return (float) v.eval(f);
      }
    };
  }

  /** An integer converted to float or double: one rounding, as C's conversion. */
  static DoubleNode fromInt(LongNode v, boolean f32) {
    return f32
        ? new DoubleNode() {
          @Override
          double eval(Frame f) {
            return (float) v.eval(f);
          }
        }
        : new DoubleNode() {
          @Override
          double eval(Frame f) {
            return (double) v.eval(f);
          }
        };
  }
}
