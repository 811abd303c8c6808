package dev.kernelgen.eval;

import dev.kernelgen.diag.CompilerBug;
import dev.kernelgen.te.BinOp;
import dev.kernelgen.te.Binary;
import dev.kernelgen.te.Call;
import dev.kernelgen.te.Cast;
import dev.kernelgen.te.DType;
import dev.kernelgen.te.Expr;
import dev.kernelgen.te.FloatImm;
import dev.kernelgen.te.IntImm;
import dev.kernelgen.te.Load;
import dev.kernelgen.te.Not;
import dev.kernelgen.te.Reduce;
import dev.kernelgen.te.Select;
import dev.kernelgen.te.TensorRead;
import dev.kernelgen.te.Var;
import java.util.HashMap;
import java.util.Map;

/**
 * Compiles scalar expressions into trees of nodes over a {@link Frame}: integer and boolean
 * expressions to {@link LongNode} (booleans also to {@link BoolNode} where a condition is wanted),
 * floating-point ones to {@link DoubleNode}. Variables live in slots assigned by {@link #bind}.
 * Subclasses compile what only one interpreter knows: tensor reads and reductions (the oracle),
 * buffer loads (the IR interpreter).
 *
 * <p>Semantics: int32 results wrap as Java ints do, int64 as longs; {@code floordiv} and {@code
 * floormod} round toward negative infinity; float32 results are rounded to float after each
 * operation (computing a float op in double and rounding once gives the correctly rounded float
 * result for + - * / and sqrt); select evaluates only the branch it takes. Subtrees whose operands
 * are all constants are folded once, at compile time.
 */
abstract class ExprCompiler {
  // The walk over the expression tree is here; the nodes for each operator are built by
  // IntArithmetic, LinearIndex, Comparisons and FloatArithmetic from the compiled operands.
  private final Map<Var, Integer> longSlots = new HashMap<>();
  private final Map<Var, Integer> doubleSlots = new HashMap<>();

  /** The slot of {@code v}, assigned on its first binding; rebinding reuses the slot. */
  final int bind(Var v) {
    return v.dtype().isFloat()
        ? doubleSlots.computeIfAbsent(v, k -> doubleSlots.size())
        : longSlots.computeIfAbsent(v, k -> longSlots.size());
  }

  final boolean isBound(Var v) {
    return (v.dtype().isFloat() ? doubleSlots : longSlots).containsKey(v);
  }

  final int longSlotCount() {
    return longSlots.size();
  }

  final int doubleSlotCount() {
    return doubleSlots.size();
  }

  private int slot(Var v) {
    Integer s = (v.dtype().isFloat() ? doubleSlots : longSlots).get(v);
    if (s == null) {
      throw unbound(v);
    }
    return s;
  }

  /** The error for a variable that is used but bound nowhere. */
  protected abstract RuntimeException unbound(Var v);

  /** Compiles a tensor read, a reduction or a buffer load of integer or boolean dtype. */
  protected abstract LongNode otherLong(Expr e);

  /** Compiles a tensor read, a reduction or a buffer load of floating-point dtype. */
  protected abstract DoubleNode otherDouble(Expr e);

  // ---------------------------------------------------------------- integer and boolean values

  /** An integer or boolean expression; booleans evaluate to 0 or 1. */
  final LongNode lng(Expr e) {
    if (e.dtype().isBool()) {
      BoolNode b = bool(e);
      if (b instanceof BoolNode.Const c) {
        return new LongNode.Const(c.value ? 1 : 0);
      }
      return new LongNode() {
        @Override
        long eval(Frame f) {
          return b.eval(f) ? 1 : 0;
        }
      };
    }
    if (!e.dtype().isInt()) {
      throw new CompilerBug(e.dtype() + " expression where an integer is needed: " + e.show());
    }
    return switch (e) {
      case IntImm i -> new LongNode.Const(i.value());
      case Var v -> new LongNode.Slot(slot(v));
      case Binary b -> intBinary(b);
      case Select s -> {
        BoolNode c = bool(s.cond());
        LongNode t = lng(s.trueValue());
        LongNode o = lng(s.falseValue());
        if (c instanceof BoolNode.Const k) {
          yield k.value ? t : o;
        }
        yield new LongNode() {
          @Override
          long eval(Frame f) {
            return c.eval(f) ? t.eval(f) : o.eval(f);
          }
        };
      }
      case Cast c -> castToInt(c);
      case TensorRead r -> otherLong(r);
      case Reduce r -> otherLong(r);
      case Load l -> otherLong(l);
      case FloatImm x -> throw new CompilerBug("float immediate with dtype " + e.dtype());
      case Not x -> throw new CompilerBug("negation with dtype " + e.dtype());
      case Call x -> throw new CompilerBug("intrinsic call with dtype " + e.dtype());
    };
  }

  private LongNode castToInt(Cast c) {
    DType from = c.value().dtype();
    boolean to32 = c.dtype() == DType.INT32;
    if (from.isFloat()) {
      DoubleNode v = dbl(c.value());
      return fold(IntArithmetic.truncate(v, to32), v);
    }
    LongNode v = lng(c.value());
    if (!to32 || from != DType.INT64) {
      return v; // int32 or bool to a wider or equal integer keeps the value
    }
    return fold(IntArithmetic.wrap32(v), v);
  }

  private LongNode intBinary(Binary e) {
    boolean w = e.dtype() == DType.INT32;
    if (e.op() == BinOp.ADD || e.op() == BinOp.SUB || e.op() == BinOp.MUL) {
      return LinearIndex.toNode(linear(e), w);
    }
    LongNode a = lng(e.a());
    LongNode b = lng(e.b());
    LongNode n =
        switch (e.op()) {
          case FLOOR_DIV -> IntArithmetic.floorDiv(a, b, w, e);
          case FLOOR_MOD -> IntArithmetic.floorMod(a, b, e);
          case MIN -> IntArithmetic.min(a, b);
          case MAX -> IntArithmetic.max(a, b);
          default -> throw new CompilerBug("integer " + e.op() + ": " + e.show());
        };
    return fold(n, a, b);
  }

  /**
   * An integer expression as a linear form: sums, differences and products with constants are
   * merged into one form; anything else becomes a term of its own.
   */
  final LinearIndex.Builder linear(Expr e) {
    CompilerBug.check(e.dtype().isInt(), "linear form of a %s expression", e.dtype());
    if (e instanceof IntImm i) {
      return LinearIndex.Builder.constant(i.value());
    }
    if (e instanceof Var v) {
      return LinearIndex.Builder.slot(slot(v), LinearIndex.PLAIN, 0);
    }
    if (e instanceof Binary b) {
      switch (b.op()) {
        case ADD -> {
          return linear(b.a()).plus(linear(b.b()), 1);
        }
        case SUB -> {
          return linear(b.a()).plus(linear(b.b()), -1);
        }
        case MUL -> {
          LinearIndex.Builder x = linear(b.a());
          LinearIndex.Builder y = linear(b.b());
          if (x.isConstant()) {
            return y.times(x.constant);
          }
          if (y.isConstant()) {
            return x.times(y.constant);
          }
          boolean w = e.dtype() == DType.INT32;
          return LinearIndex.Builder.node(
              IntArithmetic.mul(LinearIndex.toNode(x, w), LinearIndex.toNode(y, w), w));
        }
        case FLOOR_DIV, FLOOR_MOD -> {
          if (b.a() instanceof Var v && b.b() instanceof IntImm c && c.value() > 0) {
            return LinearIndex.Builder.slot(
                slot(v),
                b.op() == BinOp.FLOOR_DIV ? LinearIndex.FLOOR_DIV : LinearIndex.FLOOR_MOD,
                c.value());
          }
        }
        default -> {}
      }
    }
    return LinearIndex.Builder.node(lng(e));
  }

  /** An integer expression as a form evaluated inline by its user (tensor reads, loads). */
  final LinearIndex index(Expr e) {
    return LinearIndex.of(linear(e), e.dtype() == DType.INT32);
  }

  // ---------------------------------------------------------------- conditions

  /** A boolean expression as a condition. */
  final BoolNode bool(Expr e) {
    if (!e.dtype().isBool()) {
      throw new CompilerBug(e.dtype() + " expression where a bool is needed: " + e.show());
    }
    BoolNode n =
        switch (e) {
          case IntImm i -> new BoolNode.Const(i.value() != 0);
          case Var v -> {
            int s = slot(v);
            yield new BoolNode() {
              @Override
              boolean eval(Frame f) {
                return f.ints[s] != 0;
              }
            };
          }
          case Binary b -> b.op().isLogical() ? logical(b) : compare(b);
          case Not x -> {
            BoolNode a = bool(x.a());
            yield fold(
                new BoolNode() {
                  @Override
                  boolean eval(Frame f) {
                    return !a.eval(f);
                  }
                },
                a);
          }
          case Select s -> {
            BoolNode c = bool(s.cond());
            BoolNode t = bool(s.trueValue());
            BoolNode o = bool(s.falseValue());
            if (c instanceof BoolNode.Const k) {
              yield k.value ? t : o;
            }
            yield new BoolNode() {
              @Override
              boolean eval(Frame f) {
                return c.eval(f) ? t.eval(f) : o.eval(f);
              }
            };
          }
          case Cast c -> {
            if (c.value().dtype().isFloat()) {
              DoubleNode v = dbl(c.value());
              yield fold(
                  new BoolNode() {
                    @Override
                    boolean eval(Frame f) {
                      return v.eval(f) != 0;
                    }
                  },
                  v);
            }
            LongNode v = lng(c.value());
            yield fold(
                new BoolNode() {
                  @Override
                  boolean eval(Frame f) {
                    return v.eval(f) != 0;
                  }
                },
                v);
          }
          case TensorRead r -> Comparisons.nonZero(otherLong(r));
          case Reduce r -> Comparisons.nonZero(otherLong(r));
          case Load l -> Comparisons.nonZero(otherLong(l));
          case FloatImm x -> throw new CompilerBug("bool float immediate");
          case Call x -> throw new CompilerBug("bool intrinsic call");
        };
    return n;
  }

  private BoolNode logical(Binary e) {
    return Comparisons.logical(e.op() == BinOp.AND, bool(e.a()), bool(e.b()));
  }

  private BoolNode compare(Binary e) {
    if (e.a().dtype().isFloat()) {
      DoubleNode a = dbl(e.a());
      DoubleNode b = dbl(e.b());
      return fold(Comparisons.floats(e.op(), a, b, e), a, b);
    }
    LongNode a = lng(e.a());
    LongNode b = lng(e.b());
    if (b instanceof LongNode.Const k && !(a instanceof LongNode.Const)) {
      return Comparisons.intWithConstant(e.op(), a, k.value, e);
    }
    return fold(Comparisons.ints(e.op(), a, b, e), a, b);
  }

  // ---------------------------------------------------------------- floating-point values

  /** A floating-point expression. */
  final DoubleNode dbl(Expr e) {
    if (!e.dtype().isFloat()) {
      throw new CompilerBug(e.dtype() + " expression where a float is needed: " + e.show());
    }
    boolean f32 = e.dtype() == DType.FLOAT32;
    return switch (e) {
      case FloatImm x -> new DoubleNode.Const(f32 ? (float) x.value() : x.value());
      case Var v -> new DoubleNode.Slot(slot(v));
      case Binary b -> floatBinary(b, f32);
      case Select s -> {
        BoolNode c = bool(s.cond());
        DoubleNode t = dbl(s.trueValue());
        DoubleNode o = dbl(s.falseValue());
        if (c instanceof BoolNode.Const k) {
          yield k.value ? t : o;
        }
        yield new DoubleNode() {
          @Override
          double eval(Frame f) {
            return c.eval(f) ? t.eval(f) : o.eval(f);
          }
        };
      }
      case Cast c -> castToFloat(c, f32);
      case Call c -> intrinsic(c, f32);
      case TensorRead r -> otherDouble(r);
      case Reduce r -> otherDouble(r);
      case Load l -> otherDouble(l);
      case IntImm x -> throw new CompilerBug("integer immediate with dtype " + e.dtype());
      case Not x -> throw new CompilerBug("negation with dtype " + e.dtype());
    };
  }

  private DoubleNode castToFloat(Cast c, boolean f32) {
    DType from = c.value().dtype();
    if (from.isFloat()) {
      DoubleNode v = dbl(c.value());
      if (!f32 || from == DType.FLOAT32) {
        return v; // widening, or no change
      }
      return fold(FloatArithmetic.roundToFloat(v), v);
    }
    LongNode v = lng(c.value());
    return fold(FloatArithmetic.fromInt(v, f32), v);
  }

  private DoubleNode floatBinary(Binary e, boolean f32) {
    DoubleNode a = dbl(e.a());
    DoubleNode b = dbl(e.b());
    return fold(FloatArithmetic.binary(e.op(), a, b, f32, e), a, b);
  }

  private DoubleNode intrinsic(Call c, boolean f32) {
    DoubleNode x = dbl(c.args().get(0));
    DoubleNode y = c.args().size() > 1 ? dbl(c.args().get(1)) : null;
    DoubleNode n = FloatArithmetic.intrinsic(c.fn(), x, y, f32);
    return y == null ? fold(n, x) : fold(n, x, y);
  }

  // ---------------------------------------------------------------- constant folding

  private static boolean allConst(Object... kids) {
    for (Object k : kids) {
      if (!(k instanceof LongNode.Const
          || k instanceof DoubleNode.Const
          || k instanceof BoolNode.Const)) {
        return false;
      }
    }
    return true;
  }

  /** {@code n} evaluated now when its operands are constants (and it does not throw). */
  static LongNode fold(LongNode n, Object... kids) {
    if (allConst(kids)) {
      try {
        return new LongNode.Const(n.eval(null));
      } catch (ArithmeticException ex) {
        return n; // division by zero: keep it, so that it throws when (if ever) reached
      }
    }
    return n;
  }

  static DoubleNode fold(DoubleNode n, Object... kids) {
    return allConst(kids) ? new DoubleNode.Const(n.eval(null)) : n;
  }

  static BoolNode fold(BoolNode n, Object... kids) {
    return allConst(kids) ? new BoolNode.Const(n.eval(null)) : n;
  }
}
