package dev.kernelgen.codegen;

import dev.kernelgen.diag.CompilerBug;
import dev.kernelgen.te.BinOp;
import dev.kernelgen.te.Binary;
import dev.kernelgen.te.Buffer;
import dev.kernelgen.te.Call;
import dev.kernelgen.te.Cast;
import dev.kernelgen.te.DType;
import dev.kernelgen.te.Expr;
import dev.kernelgen.te.FloatImm;
import dev.kernelgen.te.IntImm;
import dev.kernelgen.te.Intrinsic;
import dev.kernelgen.te.Load;
import dev.kernelgen.te.Not;
import dev.kernelgen.te.Reduce;
import dev.kernelgen.te.Select;
import dev.kernelgen.te.TensorRead;
import dev.kernelgen.te.Var;
import dev.kernelgen.tir.For;
import dev.kernelgen.tir.LetStmt;
import dev.kernelgen.tir.PrimFunc;
import dev.kernelgen.tir.Stmt;
import dev.kernelgen.tir.StmtVisitor;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.SortedMap;
import java.util.TreeMap;
import java.util.stream.Collectors;

/**
 * The expression half of the printer shared by the four targets ({@link CLikePrinter} adds the
 * statements): expressions of a lowered function in C syntax, with hooks where the targets differ
 * (types, literals, memory reads, casts, intrinsics, min/max, floor division), and the helper
 * definitions (such as {@code kg_floordiv_i32}) that the printed expressions call.
 *
 * <p>Compound expressions are always parenthesized, except at the top of a statement, so that no
 * target's precedence rules matter.
 */
abstract class CLikeExprPrinter {
  private final SortedMap<String, String> helpers = new TreeMap<>();

  /** The function being printed, and its state. */
  PrimFunc func;

  Names names;

  /** Variables known to be non-negative: loop variables from 0 (thread indices too), lets. */
  private Set<Var> nonNegative = Set.of();

  /** Starts printing {@code f}: fresh names, and what is known of its variables' signs. */
  final void beginFunction(PrimFunc f) {
    func = f;
    names = new Names();
    nonNegative = nonNegativeVars(f.body());
  }

  private Set<Var> nonNegativeVars(Stmt body) {
    Set<Var> vars = new HashSet<>();
    nonNegative = vars;
    new StmtVisitor() {
      @Override
      public void visit(Stmt s) {
        if (s instanceof For f && isNonNegative(f.min())) {
          vars.add(f.loopVar());
        } else if (s instanceof LetStmt l && isNonNegative(l.value())) {
          vars.add(l.var());
        }
        super.visit(s);
      }
    }.visit(body);
    return vars;
  }

  final boolean isNonNegative(Expr e) {
    return switch (e) {
      case IntImm i -> i.value() >= 0;
      case Var v -> nonNegative.contains(v);
      case Cast c -> c.dtype().isInt() && c.value().dtype().isInt() && isNonNegative(c.value());
      case Binary b ->
          switch (b.op()) {
            case ADD, MUL, MIN -> isNonNegative(b.a()) && isNonNegative(b.b());
            case MAX -> isNonNegative(b.a()) || isNonNegative(b.b());
            case FLOOR_DIV, FLOOR_MOD ->
                isNonNegative(b.a()) && b.b() instanceof IntImm c && c.value() > 0;
            default -> false;
          };
      default -> false;
    };
  }

  /**
   * The helper definitions used by the functions, sorted by name, each followed by a blank line.
   */
  final String helpersText() {
    return helpers.values().stream().map(h -> h + "\n").collect(Collectors.joining());
  }

  /** Registers a helper definition (once) and returns its name. */
  final String helper(String name, String definition) {
    helpers.putIfAbsent(name, definition);
    return name;
  }

  // ---- target hooks ----

  /** The scalar type of a value. */
  abstract String typeName(DType t);

  /** The element type of a buffer (a target may store bool in bytes). */
  String elementType(DType t) {
    return typeName(t);
  }

  /** A 64-bit integer literal, without parentheses. */
  abstract String int64Literal(long v);

  abstract String infinity(DType t);

  abstract String nan(DType t);

  /** The qualifiers of helper functions ({@code static inline}). */
  abstract String helperQualifiers();

  abstract String intrinsic(Intrinsic fn, DType t, List<String> args);

  abstract String minMax(BinOp op, DType t, String a, String b);

  String load(Buffer b, Expr index) {
    return names.of(b, func.name()) + "[" + expr(index, true) + "]";
  }

  String cast(DType to, Expr value) {
    if (to == DType.BOOL) {
      return "(" + expr(value, false) + " != " + zero(value.dtype()) + ")";
    }
    return "((" + typeName(to) + ")" + expr(value, false) + ")";
  }

  String floorDivMod(BinOp op, DType t, String a, String b) {
    return floorDivModHelper(op, t) + "(" + a + ", " + b + ")";
  }

  /** The helper that {@link #floorDivMod} calls, defined; its name. */
  final String floorDivModHelper(BinOp op, DType t) {
    String q = helperQualifiers();
    String ty = typeName(t);
    String suffix = t == DType.INT64 ? "i64" : "i32";
    String name = (op == BinOp.FLOOR_DIV ? "kg_floordiv_" : "kg_floormod_") + suffix;
    // C's '/' truncates towards zero; floor semantics differ when the remainder is not zero and
    // its sign differs from the divisor's. Without branches: a loop whose body calls these (the
    // index arithmetic of symbolic-shape kernels) stays one basic block, which gcc vectorizes; with
    // '&&' it saw control flow and vectorized none of a generic conv + bn + swish's 100 loops.
    String fix = "(" + ty + ") ((r != 0) & ((r ^ b) < 0))";
    String def =
        op == BinOp.FLOOR_DIV
            ? q
                + " "
                + ty
                + " "
                + name
                + "("
                + ty
                + " a, "
                + ty
                + " b) {\n"
                + "  "
                + ty
                + " q = a / b;\n"
                + "  "
                + ty
                + " r = a - q * b;\n"
                + "  return q - "
                + fix
                + ";\n"
                + "}\n"
            : q
                + " "
                + ty
                + " "
                + name
                + "("
                + ty
                + " a, "
                + ty
                + " b) {\n"
                + "  "
                + ty
                + " r = a % b;\n"
                + "  return r + (b & -"
                + fix
                + ");\n"
                + "}\n";
    return helper(name, def);
  }

  /**
   * A floor division or modulo whose divisor is read from memory (a tensor's value, which may be 0
   * whatever the shapes); dims and constants are checked or known at launch.
   */
  String dataDivMod(BinOp op, DType t, String a, String b) {
    return floorDivMod(op, t, a, b);
  }

  /** How many selects' branches the expression being printed lies in: reads there are guarded. */
  int selectDepth;

  /** The constant ranges of the loops around the statement being printed. */
  final java.util.Map<dev.kernelgen.te.Var, dev.kernelgen.arith.ConstIntBound> loopRanges =
      new java.util.HashMap<>();

  static boolean readsMemory(Expr e) {
    boolean[] found = {false};
    new dev.kernelgen.te.ExprVisitor() {
      @Override
      public void visit(Expr x) {
        found[0] |= x instanceof dev.kernelgen.te.Load;
        super.visit(x);
      }
    }.visit(e);
    return found[0];
  }

  final String name(Buffer b) {
    return names.of(b, func.name());
  }

  final String name(Var v) {
    return names.of(v, func.name());
  }

  // ---- expressions ----

  /** An expression; {@code top} when it stands alone (no parentheses needed around it). */
  final String expr(Expr e, boolean top) {
    return switch (e) {
      case IntImm i -> intLiteral(i.dtype(), i.value());
      case FloatImm f -> floatLiteral(f.dtype(), f.value());
      case Var v -> name(v);
      case Binary b -> binary(b, top);
      case Not n -> "!" + expr(n.a(), false);
      // A conditional expression evaluates one branch only: it guards out-of-range reads.
      case Select s -> {
        String cond = expr(s.cond(), false);
        selectDepth++;
        try {
          yield wrap(
              cond + " ? " + expr(s.trueValue(), false) + " : " + expr(s.falseValue(), false), top);
        } finally {
          selectDepth--;
        }
      }
      case Cast c -> cast(c.dtype(), c.value());
      case Call c ->
          intrinsic(c.fn(), c.dtype(), c.args().stream().map(a -> expr(a, true)).toList());
      case Load l -> load(l.buffer(), l.index());
      case TensorRead r ->
          throw new CompilerBug(
              "tensor read of " + r.tensor().name() + " in " + func.name() + " reached codegen");
      case Reduce r ->
          throw new CompilerBug(
              "reduction " + r.show() + " in " + func.name() + " reached codegen");
    };
  }

  private String binary(Binary b, boolean top) {
    DType t = b.a().dtype();
    if ((b.op() == BinOp.FLOOR_DIV || b.op() == BinOp.FLOOR_MOD)
        && b.b() instanceof dev.kernelgen.te.IntImm c
        && c.value() > 0
        && isNonNegative(b.a())) {
      // Floor and truncating division agree on a non-negative dividend and positive divisor;
      // the plain operator lets the native compiler use its cheapest sequence.
      String sym = b.op() == BinOp.FLOOR_DIV ? " / " : " % ";
      return wrap(expr(b.a(), false) + sym + expr(b.b(), false), top);
    }
    return switch (b.op()) {
      case FLOOR_DIV, FLOOR_MOD ->
          readsMemory(b.b())
              ? dataDivMod(b.op(), t, expr(b.a(), true), expr(b.b(), true))
              : floorDivMod(b.op(), t, expr(b.a(), true), expr(b.b(), true));
      case MIN, MAX -> minMax(b.op(), t, expr(b.a(), true), expr(b.b(), true));
      case ADD, SUB, MUL, DIV, EQ, NE, LT, LE, GT, GE, AND, OR ->
          wrap(expr(b.a(), false) + " " + b.op().symbol() + " " + expr(b.b(), false), top);
    };
  }

  private static String wrap(String s, boolean top) {
    return top ? s : "(" + s + ")";
  }

  final String intLiteral(DType t, long v) {
    if (t == DType.BOOL) {
      return v != 0 ? "true" : "false";
    }
    String s;
    if (t == DType.INT32) {
      // -2147483648 is the negation of a literal that does not fit in int.
      s = v == Integer.MIN_VALUE ? "-2147483647 - 1" : Long.toString(v);
    } else {
      s = int64Literal(v);
    }
    return v < 0 ? "(" + s + ")" : s;
  }

  final String floatLiteral(DType t, double v) {
    double x = t == DType.FLOAT32 ? (float) v : v;
    if (Double.isNaN(x)) {
      return nan(t);
    }
    if (Double.isInfinite(x)) {
      return x > 0 ? infinity(t) : "(-" + infinity(t) + ")";
    }
    typeName(t); // lets a target note the dtype's use (OpenCL's fp64 extension)
    // Java's shortest round-trip representation is a valid C literal too.
    String s = t == DType.FLOAT32 ? Float.toString((float) x) + "f" : Double.toString(x);
    return s.startsWith("-") ? "(" + s + ")" : s;
  }

  final String zero(DType t) {
    return t.isFloat() ? floatLiteral(t, 0) : intLiteral(t == DType.BOOL ? DType.INT32 : t, 0);
  }

  /** The C math library names: {@code expf} for float, {@code exp} for double. */
  static String cMathName(Intrinsic fn, DType t) {
    return t == DType.FLOAT32 ? fn.cName() + "f" : fn.cName();
  }
}
