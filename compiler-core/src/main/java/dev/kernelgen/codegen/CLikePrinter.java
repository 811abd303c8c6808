package dev.kernelgen.codegen;

import dev.kernelgen.diag.CompilerBug;
import dev.kernelgen.diag.UserError;
import dev.kernelgen.schedule.ThreadTag;
import dev.kernelgen.te.Binary;
import dev.kernelgen.te.Buffer;
import dev.kernelgen.te.Cast;
import dev.kernelgen.te.DType;
import dev.kernelgen.te.Expr;
import dev.kernelgen.te.IntImm;
import dev.kernelgen.te.Var;
import dev.kernelgen.tir.Accumulations;
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
import java.util.HashSet;
import java.util.List;
import java.util.OptionalLong;
import java.util.Set;

/**
 * The printer shared by the four targets: statements of a lowered function in C syntax over the
 * expressions of {@link CLikeExprPrinter}, with hooks where the targets differ (functions, loops,
 * allocation, barriers, stores, lets), and the module: the functions in order, after the helpers
 * they call. One instance prints one module; function state is reset per function.
 */
abstract class CLikePrinter extends CLikeExprPrinter {
  private final StringBuilder functions = new StringBuilder();
  private final Set<String> functionNames = new HashSet<>();

  private StringBuilder out;
  private int depth;
  private Set<Buffer> stored;

  /** How many loops bound to threadIdx.* enclose the statement being printed. */
  int threadLoops;

  // ---- module ----

  /** Prints every function, in order, after checking that their names are distinct. */
  final void printAll(List<PrimFunc> funcs) {
    UserError.check(!funcs.isEmpty(), "a kernel module needs at least one function");
    for (PrimFunc f : funcs) {
      Names.checkSymbol("function", f.name());
      UserError.check(
          functionNames.add(f.name()), "two functions of one module are named '%s'", f.name());
      beginFunction(f);
      out = new StringBuilder();
      depth = 0;
      threadLoops = 0;
      stored = StmtVisitor.storedBuffers(f.body());
      function(f);
      if (!functions.isEmpty()) {
        functions.append('\n');
      }
      functions.append(out);
    }
  }

  final String functionsText() {
    return functions.toString();
  }

  // ---- target hooks ----

  /** Prints one function: signature, body and closing brace. */
  abstract void function(PrimFunc f);

  abstract void forLoop(For f);

  abstract void allocate(Allocate a);

  abstract void barrier(Barrier b);

  String store(Buffer b, Expr index, String value) {
    return names.of(b, func.name()) + "[" + expr(index, true) + "] = " + value + ";";
  }

  String letDecl(DType t, String name, String value) {
    return "const " + typeName(t) + " " + name + " = " + value + ";";
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
    return stored.contains(b) || KernelStatus.isStatus(b);
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
      case For f -> {
        if (f.min() instanceof IntImm lo && f.extent() instanceof IntImm n && n.value() > 0) {
          loopRanges.put(
              f.loopVar(), dev.kernelgen.arith.ConstIntBound.range(lo.value(), n.value()));
        }
        forLoop(f);
        loopRanges.remove(f.loopVar());
      }
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
      case Seq q -> seq(q.stmts());
      case Store st -> line(store(st.buffer(), st.index(), expr(st.value(), true)));
      case Allocate a -> allocate(a);
      case Evaluate e -> evaluate(e);
      case Barrier b -> barrier(b);
      case ProducerRealize r ->
          throw new CompilerBug(
              "realize of " + r.tensor().name() + " in " + func.name() + " reached codegen");
      case ProducerStore p ->
          throw new CompilerBug(
              "provide of " + p.tensor().name() + " in " + func.name() + " reached codegen");
    }
  }

  /** Prints statements in order (a target may print some groups of them as one). */
  void seq(List<Stmt> stmts) {
    stmts.forEach(this::stmt);
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

  /**
   * An expression evaluated for its effect. Expressions have none, so by default nothing is
   * printed; a target that has prefetch instructions prints the {@link dev.kernelgen.te.Load} of
   * one as a prefetch of that element (lower/PrefetchNextRow).
   */
  void evaluate(Evaluate e) {}

  /**
   * A reduction loop whose elements accumulated ({@code accs}, after the body's other statements)
   * are each held in a scalar across the loop. Vectorized ({@code simd} the loop's pragma), {@code
   * omp simd reduction} gives each vector lane a copy, combined after the loop. Serial, where the
   * element is in a heap temporary: the C compiler cannot tell the temporary from the inputs, so it
   * would load and store the element at every step, and a vectorized loop around this one (a row of
   * outputs, each summing a long window) stays scalar (gcc 12: "unsupported use of nested cycle"; a
   * 63-tap filter over [16, 20000] ran 12.3 ms on one core so, 1.0 ms with the scalar).
   */
  final void scalarAccumulators(For f, List<Store> accs, List<String> simd) {
    List<Stmt> before =
        f.body() instanceof Seq q
            ? q.stmts().subList(0, q.stmts().size() - accs.size())
            : List.of();
    List<Var> accVars = new ArrayList<>();
    List<String> prevs = new ArrayList<>();
    List<String> accNames = new ArrayList<>();
    StringBuilder clauses = new StringBuilder(simd.isEmpty() ? "" : simd.get(0));
    line("{");
    indent();
    for (Store st : accs) {
      Binary b = (Binary) st.value();
      Var accVar = new Var("acc", st.buffer().dtype());
      accVars.add(accVar);
      prevs.add(names.current(accVar));
      String acc = names.bind(accVar, accVar.name());
      accNames.add(acc);
      String op =
          switch (b.op()) {
            case ADD -> "+";
            case MUL -> "*";
            case MIN -> "min";
            default -> "max";
          };
      if (!simd.isEmpty()) {
        clauses.append(" reduction(").append(op).append(':').append(acc).append(')');
      }
      line(typeName(accVar.dtype()) + " " + acc + " = " + load(st.buffer(), st.index()) + ";");
    }
    serialFor(
        f,
        simd.isEmpty() ? List.of() : List.of(clauses.toString()),
        () -> {
          before.forEach(this::stmt);
          for (int i = 0; i < accs.size(); i++) {
            Store st = accs.get(i);
            Expr value =
                new Binary(((Binary) st.value()).op(), accVars.get(i), Accumulations.value(st));
            line(accNames.get(i) + " = " + expr(value, true) + ";");
          }
        });
    for (int i = 0; i < accs.size(); i++) {
      line(load(accs.get(i).buffer(), accs.get(i).index()) + " = " + accNames.get(i) + ";");
    }
    dedent();
    line("}");
    for (int i = accs.size() - 1; i >= 0; i--) {
      names.restore(accVars.get(i), prevs.get(i));
    }
  }
}
