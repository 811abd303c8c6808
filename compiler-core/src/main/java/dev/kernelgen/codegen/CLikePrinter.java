package dev.kernelgen.codegen;

import dev.kernelgen.diag.CompilerBug;
import dev.kernelgen.diag.UserError;
import dev.kernelgen.schedule.ThreadTag;
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
import dev.kernelgen.tir.Allocate;
import dev.kernelgen.tir.Barrier;
import dev.kernelgen.tir.Evaluate;
import dev.kernelgen.tir.For;
import dev.kernelgen.tir.ForKind;
import dev.kernelgen.tir.IfThenElse;
import dev.kernelgen.tir.LetStmt;
import dev.kernelgen.tir.PrimFunc;
import dev.kernelgen.tir.ProducerRealize;
import dev.kernelgen.tir.ProducerStore;
import dev.kernelgen.tir.Seq;
import dev.kernelgen.tir.Stmt;
import dev.kernelgen.tir.StmtVisitor;
import dev.kernelgen.tir.Store;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashSet;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.OptionalLong;
import java.util.Set;
import java.util.SortedMap;
import java.util.TreeMap;
import java.util.stream.Collectors;

/**
 * The printer shared by the four targets: statements and expressions of a lowered function in C
 * syntax, with hooks where the targets differ (types, literals, memory access, loops, allocation,
 * barriers, intrinsics). One instance prints one module; function state is reset per function.
 *
 * <p>Compound expressions are always parenthesized, except at the top of a statement, so that no
 * target's precedence rules matter.
 */
abstract class CLikePrinter {
  private final StringBuilder functions = new StringBuilder();
  private final SortedMap<String, String> helpers = new TreeMap<>();
  private final Set<String> functionNames = new HashSet<>();

  /** The function being printed, and its state. */
  PrimFunc func;

  Names names;
  private StringBuilder out;
  private int depth;
  private Set<Buffer> stored;

  /** How many loops bound to threadIdx.* enclose the statement being printed. */
  int threadLoops;

  // ---- module ----

  /** Prints every function, in order, after checking that their names are distinct. */
  /** Variables known to be non-negative: loop variables from 0 (thread indices too), lets. */
  private java.util.Set<dev.kernelgen.te.Var> nonNegative = java.util.Set.of();

  private java.util.Set<dev.kernelgen.te.Var> nonNegativeVars(dev.kernelgen.tir.Stmt body) {
    java.util.Set<dev.kernelgen.te.Var> vars = new java.util.HashSet<>();
    nonNegative = vars;
    new dev.kernelgen.tir.StmtVisitor() {
      @Override
      public void visit(dev.kernelgen.tir.Stmt s) {
        if (s instanceof For f && isNonNegative(f.min())) {
          vars.add(f.loopVar());
        } else if (s instanceof dev.kernelgen.tir.LetStmt l && isNonNegative(l.value())) {
          vars.add(l.var());
        }
        super.visit(s);
      }
    }.visit(body);
    return vars;
  }

  final boolean isNonNegative(Expr e) {
    return switch (e) {
      case dev.kernelgen.te.IntImm i -> i.value() >= 0;
      case dev.kernelgen.te.Var v -> nonNegative.contains(v);
      case dev.kernelgen.te.Cast c ->
          c.dtype().isInt() && c.value().dtype().isInt() && isNonNegative(c.value());
      case Binary b ->
          switch (b.op()) {
            case ADD, MUL, MIN -> isNonNegative(b.a()) && isNonNegative(b.b());
            case MAX -> isNonNegative(b.a()) || isNonNegative(b.b());
            case FLOOR_DIV, FLOOR_MOD ->
                isNonNegative(b.a()) && b.b() instanceof dev.kernelgen.te.IntImm c && c.value() > 0;
            default -> false;
          };
      default -> false;
    };
  }

  final void printAll(List<PrimFunc> funcs) {
    UserError.check(!funcs.isEmpty(), "a kernel module needs at least one function");
    for (PrimFunc f : funcs) {
      Names.checkSymbol("function", f.name());
      UserError.check(
          functionNames.add(f.name()), "two functions of one module are named '%s'", f.name());
      func = f;
      names = new Names();
      out = new StringBuilder();
      depth = 0;
      threadLoops = 0;
      stored = storedBuffers(f.body());
      nonNegative = nonNegativeVars(f.body());
      function(f);
      if (!functions.isEmpty()) {
        functions.append('\n');
      }
      functions.append(out);
    }
  }

  /**
   * The helper definitions used by the functions, sorted by name, each followed by a blank line.
   */
  final String helpersText() {
    return helpers.values().stream().map(h -> h + "\n").collect(Collectors.joining());
  }

  final String functionsText() {
    return functions.toString();
  }

  /** Registers a helper definition (once) and returns its name. */
  final String helper(String name, String definition) {
    helpers.putIfAbsent(name, definition);
    return name;
  }

  // ---- target hooks ----

  /** Prints one function: signature, body and closing brace. */
  abstract void function(PrimFunc f);

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

  abstract void forLoop(For f);

  abstract void allocate(Allocate a);

  abstract void barrier(Barrier b);

  String load(Buffer b, Expr index) {
    return names.of(b, func.name()) + "[" + expr(index, true) + "]";
  }

  String store(Buffer b, Expr index, String value) {
    return names.of(b, func.name()) + "[" + expr(index, true) + "] = " + value + ";";
  }

  String letDecl(DType t, String name, String value) {
    return "const " + typeName(t) + " " + name + " = " + value + ";";
  }

  String cast(DType to, Expr value) {
    if (to == DType.BOOL) {
      return "(" + expr(value, false) + " != " + zero(value.dtype()) + ")";
    }
    return "((" + typeName(to) + ")" + expr(value, false) + ")";
  }

  String floorDivMod(BinOp op, DType t, String a, String b) {
    String q = helperQualifiers();
    String ty = typeName(t);
    String suffix = t == DType.INT64 ? "i64" : "i32";
    String name = (op == BinOp.FLOOR_DIV ? "kg_floordiv_" : "kg_floormod_") + suffix;
    // C's '/' truncates towards zero; floor semantics differ when the signs differ.
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
                + "  return (a % b != 0 && ((a < 0) != (b < 0))) ? q - 1 : q;\n"
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
                + "  return (r != 0 && ((r < 0) != (b < 0))) ? r + b : r;\n"
                + "}\n";
    return helper(name, def) + "(" + a + ", " + b + ")";
  }

  // ---- shared machinery for the hooks ----

  final void line(String s) {
    out.append("  ".repeat(depth)).append(s).append('\n');
  }

  final void indent() {
    depth++;
  }

  final void dedent() {
    depth--;
  }

  /** Whether the function stores to {@code b} (else a parameter can be const). */
  final boolean isStored(Buffer b) {
    return stored.contains(b);
  }

  /** Binds the parameters' identifiers: buffers in order, then scalars. */
  final void bindParams(PrimFunc f) {
    for (Buffer b : f.params()) {
      names.bind(b, b.name());
    }
    for (Var v : f.scalars()) {
      names.bind(v, v.name());
    }
  }

  final String name(Buffer b) {
    return names.of(b, func.name());
  }

  final String name(Var v) {
    return names.of(v, func.name());
  }

  /** A constant allocation size, if it is one. */
  static OptionalLong constantSize(Allocate a) {
    return a.size() instanceof IntImm i ? OptionalLong.of(i.value()) : OptionalLong.empty();
  }

  /** The exclusive upper bound of a loop: {@code extent} or {@code (min + extent)}. */
  final String loopEnd(For f) {
    if (f.min() instanceof IntImm m && m.value() == 0) {
      return expr(f.extent(), false);
    }
    if (f.min() instanceof IntImm m && f.extent() instanceof IntImm e) {
      return intLiteral(f.loopVar().dtype(), m.value() + e.value());
    }
    return "(" + expr(f.min(), false) + " + " + expr(f.extent(), false) + ")";
  }

  /**
   * The first value of a loop, in its variable's type: a bound that loop passes computed in 64 bits
   * (from 64-bit extents around it) is cast down to a 32-bit loop variable it fits.
   */
  final String loopStart(For f) {
    DType t = f.loopVar().dtype();
    return expr(f.min().dtype() == t ? f.min() : Cast.of(t, f.min()), true);
  }

  /** A plain {@code for} loop, preceded by the given pragma lines. */
  final void serialFor(For f, List<String> pragmaLines) {
    serialFor(f, pragmaLines, () -> loopBody(f));
  }

  /** A plain {@code for} loop, preceded by the given pragma lines, with {@code body} inside. */
  final void serialFor(For f, List<String> pragmaLines, Runnable body) {
    String lo = loopStart(f);
    String hi = loopEnd(f);
    String prev = names.current(f.loopVar());
    String v = names.bind(f.loopVar(), f.loopVar().name());
    for (String p : pragmaLines) {
      line(p);
    }
    line(
        "for ("
            + typeName(f.loopVar().dtype())
            + " "
            + v
            + " = "
            + lo
            + "; "
            + v
            + " < "
            + hi
            + "; ++"
            + v
            + ") {");
    indent();
    body.run();
    dedent();
    line("}");
    names.restore(f.loopVar(), prev);
  }

  /** The body of a loop, counting the thread loops around it. */
  final void loopBody(For f) {
    boolean thread = f.kind() == ForKind.THREAD_BINDING && ThreadTag.isThread(f.threadTag());
    threadLoops += thread ? 1 : 0;
    stmt(f.body());
    threadLoops -= thread ? 1 : 0;
  }

  /** For the CPU targets: a barrier between threads that run serially cannot be honoured. */
  final void serialBarrier(Barrier b, String target) {
    UserError.check(
        threadLoops == 0,
        "function %s has a barrier (%s) inside a threadIdx-bound loop; the %s target runs"
            + " thread-bound loops one thread after the other and cannot honour it: give this"
            + " target a schedule without shared memory and barriers",
        func.name(),
        b.scope(),
        target);
  }

  /** Pragma lines for {@link For#pragmas()}, verbatim. */
  static List<String> userPragmas(For f) {
    List<String> out = new ArrayList<>();
    for (String p : f.pragmas()) {
      out.add("#pragma " + p);
    }
    return out;
  }

  // ---- statements ----

  final void stmt(Stmt s) {
    switch (s) {
      case For f -> forLoop(f);
      case LetStmt l -> {
        String value = expr(l.value(), true);
        String prev = names.current(l.var());
        String v = names.bind(l.var(), l.var().name());
        line(letDecl(l.var().dtype(), v, value));
        stmt(l.body());
        names.restore(l.var(), prev);
      }
      case IfThenElse i -> {
        line("if (" + expr(i.condition(), true) + ") {");
        indent();
        stmt(i.thenCase());
        dedent();
        if (i.elseCase() != null) {
          line("} else {");
          indent();
          stmt(i.elseCase());
          dedent();
        }
        line("}");
      }
      case Seq q -> q.stmts().forEach(this::stmt);
      case Store st -> line(store(st.buffer(), st.index(), expr(st.value(), true)));
      case Allocate a -> allocate(a);
      // Expressions have no effects, so evaluating one for its effect does nothing.
      case Evaluate e -> {}
      case Barrier b -> barrier(b);
      case ProducerRealize r ->
          throw new CompilerBug(
              "realize of " + r.tensor().name() + " in " + func.name() + " reached codegen");
      case ProducerStore p ->
          throw new CompilerBug(
              "provide of " + p.tensor().name() + " in " + func.name() + " reached codegen");
    }
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
      case Select s ->
          wrap(
              expr(s.cond(), false)
                  + " ? "
                  + expr(s.trueValue(), false)
                  + " : "
                  + expr(s.falseValue(), false),
              top);
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
      case FLOOR_DIV, FLOOR_MOD -> floorDivMod(b.op(), t, expr(b.a(), true), expr(b.b(), true));
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

  static Set<Buffer> storedBuffers(Stmt body) {
    Set<Buffer> out = Collections.newSetFromMap(new IdentityHashMap<>());
    new StmtVisitor() {
      @Override
      public void visit(Stmt s) {
        if (s instanceof Store st) {
          out.add(st.buffer());
        }
        super.visit(s);
      }
    }.visit(body);
    return out;
  }

  /** The parameter list, comma separated, given a printer for buffers and one for scalars. */
  final String paramList(
      java.util.function.Function<Buffer, String> buffer,
      java.util.function.Function<Var, String> scalar) {
    List<String> ps = new ArrayList<>();
    func.params().forEach(b -> ps.add(buffer.apply(b)));
    func.scalars().forEach(v -> ps.add(scalar.apply(v)));
    return String.join(", ", ps);
  }
}
