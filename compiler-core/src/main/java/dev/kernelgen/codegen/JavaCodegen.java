package dev.kernelgen.codegen;

import dev.kernelgen.te.BinOp;
import dev.kernelgen.te.Buffer;
import dev.kernelgen.te.DType;
import dev.kernelgen.te.Expr;
import dev.kernelgen.te.IntImm;
import dev.kernelgen.te.Intrinsic;
import dev.kernelgen.tir.Allocate;
import dev.kernelgen.tir.Barrier;
import dev.kernelgen.tir.For;
import dev.kernelgen.tir.ForKind;
import dev.kernelgen.tir.PrimFunc;
import dev.kernelgen.tir.Stmt;
import dev.kernelgen.tir.StmtVisitor;
import dev.kernelgen.tir.Store;
import java.util.ArrayList;
import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

/**
 * Prints lowered functions as one Java class of static methods: the pure Java target, which runs
 * wherever the JDK does. Parameters are {@link java.lang.foreign.MemorySegment}s (accessed with
 * {@code getAtIndex}/{@code setAtIndex}) and the symbolic dims; allocations inside a function are
 * Java arrays.
 *
 * <p>Parallel loops become {@code IntStream.range(lo, hi).parallel().forEach(v -> {...})}: the IR's
 * let-bound values are final and buffers never reassigned, so the lambda body compiles; serial
 * loops around a parallel one hand it a final copy of their counter. Everything else is serial. A
 * kernel run through the runtime's Java device runs inside the device's own fork-join pool, so its
 * parallel streams use that pool's threads (reused across calls), not the common pool.
 *
 * <p>Inner loops are printed in forms that HotSpot's C2 compiles to tight code ({@link
 * JavaLoopForms}, {@link JavaLoopPrinter}): accumulators in local variables, loop-invariant loads
 * read before the loop, constant-size local arrays allocated once per function or parallel task,
 * contiguous copies as bulk copies, rows of a parameter staged in an array so that their loop is
 * over arrays, rows of taps split over a window ({@link JavaRowSplit}) and the rows of a plane
 * computed as one long row ({@link JavaRowFlatten}, applied to the IR before printing). A parallel
 * task or a function without parallel loops takes its arrays of 1 KiB to 4 MiB from a per-thread
 * workspace ({@code ThreadLocal} fields of the class), so that a call allocates nothing for them.
 *
 * <p>Why plain loops for C2 and not the Vector API: {@code jdk.incubator.vector} (still incubating
 * in JDK 25) is resolved only when the JVM starts with {@code --add-modules jdk.incubator.vector};
 * a jar manifest cannot add a module, and an application cannot load it later ({@code
 * ModuleLayer.defineModulesWithOneLoader} refuses a system module: "Class loader must be the boot
 * class loader"). A vector variant would therefore run only for users who add the flag, and the
 * default must be fast without it. C2's auto-vectorizer (JDK 25) vectorizes a loop over arrays only
 * when it can prove that its stores do not feed its loads, which it cannot for two arrays indexed
 * at offsets that differ by a loop-invariant (no runtime alias check before JDK 26), and it did not
 * vectorize segment accesses in these loops: the forms above make the loops that can be vectorized
 * array loops, and the others tight scalar code.
 */
public final class JavaCodegen extends JavaLoopPrinter {
  private final Set<String> streams = new TreeSet<>();

  /** The identifiers of allocations already declared at the top of their function or task. */
  private final Map<Allocate, String> hoisted = new IdentityHashMap<>();

  /**
   * The sizes of the arrays taken from a thread's workspace, in bytes: a smaller one costs less to
   * allocate and zero than a thread-local lookup, a larger one would stay with each thread.
   */
  static final long MIN_WORKSPACE_BYTES = 1024;

  static final long MAX_WORKSPACE_BYTES = 4 << 20;

  /** The declarations of the per-thread arrays, in printing order. */
  private final List<String> workspaceFields = new ArrayList<>();

  /** Whether the region being declared takes its arrays from the workspace. */
  private boolean workspace;

  /** The buffers the function allocates (Java arrays). */
  private Set<Buffer> localArrays = Set.of();

  private JavaCodegen() {}

  /** The source of {@code packageName.className} with one static method per function. */
  public static String generate(List<PrimFunc> funcs, String packageName, String className) {
    Names.checkSymbol("class", className);
    for (String part : packageName.isEmpty() ? new String[0] : packageName.split("\\.", -1)) {
      Names.checkSymbol("package", part);
    }
    JavaCodegen g = new JavaCodegen();
    g.printAll(funcs.stream().map(f -> f.withBody(JavaRowFlatten.apply(f.body()))).toList());
    StringBuilder s = new StringBuilder();
    if (!packageName.isEmpty()) {
      s.append("package ").append(packageName).append(";\n\n");
    }
    for (String l : g.layouts) {
      s.append("import static java.lang.foreign.ValueLayout.").append(l).append(";\n");
    }
    if (!g.layouts.isEmpty()) {
      s.append('\n');
    }
    s.append("import java.lang.foreign.MemorySegment;\n");
    for (String st : g.streams) {
      s.append("import java.util.stream.").append(st).append(";\n");
    }
    s.append('\n');
    s.append("/** Kernels of module ").append(className).append(": generated, do not edit. */\n");
    s.append("public final class ").append(className).append(" {\n");
    s.append("  private ").append(className).append("() {}\n\n");
    for (String field : g.workspaceFields) {
      s.append(field.indent(2)).append('\n');
    }
    s.append(g.helpersText().indent(2).replace("  \n", "\n"));
    s.append(g.functionsText().indent(2).replace("  \n", "\n"));
    s.append("}\n");
    return s.toString();
  }

  @Override
  void function(PrimFunc f) {
    bindParams(f);
    String params =
        paramList(b -> "MemorySegment " + name(b), v -> typeName(v.dtype()) + " " + name(v));
    line("public static void " + f.name() + "(" + params + ") {");
    indent();
    localArrays = Collections.newSetFromMap(new IdentityHashMap<>());
    new StmtVisitor() {
      @Override
      public void visit(Stmt s) {
        if (s instanceof Allocate a) {
          localArrays.add(a.buffer());
        }
        super.visit(s);
      }
    }.visit(f.body());
    hoistAllocations(f.body());
    stmt(f.body());
    dedent();
    line("}");
  }

  @Override
  String typeName(DType t) {
    return switch (t) {
      case BOOL -> "boolean";
      case INT32 -> "int";
      case INT64 -> "long";
      case FLOAT32 -> "float";
      case FLOAT64 -> "double";
    };
  }

  @Override
  String int64Literal(long v) {
    return v + "L";
  }

  @Override
  String infinity(DType t) {
    return t == DType.FLOAT32 ? "Float.POSITIVE_INFINITY" : "Double.POSITIVE_INFINITY";
  }

  @Override
  String nan(DType t) {
    return t == DType.FLOAT32 ? "Float.NaN" : "Double.NaN";
  }

  @Override
  String helperQualifiers() {
    return "private static";
  }

  @Override
  String intrinsic(Intrinsic fn, DType t, List<String> args) {
    String m =
        switch (fn) {
          case EXP -> "exp";
          case LOG -> "log";
          case SQRT -> "sqrt";
          case TANH -> "tanh";
          case POW -> "pow";
          case ABS -> "abs";
          case FLOOR -> "floor";
          case CEIL -> "ceil";
        };
    String call = "Math." + m + "(" + String.join(", ", args) + ")";
    // Math works in double except abs, which has a float overload.
    return t == DType.FLOAT32 && fn != Intrinsic.ABS ? "((float) " + call + ")" : call;
  }

  @Override
  String minMax(BinOp op, DType t, String a, String b) {
    return "Math." + (op == BinOp.MIN ? "min" : "max") + "(" + a + ", " + b + ")";
  }

  @Override
  String floorDivMod(BinOp op, DType t, String a, String b) {
    return "Math." + (op == BinOp.FLOOR_DIV ? "floorDiv" : "floorMod") + "(" + a + ", " + b + ")";
  }

  @Override
  String cast(DType to, Expr value) {
    if (value.dtype() == DType.BOOL && to != DType.BOOL) {
      return "("
          + expr(value, false)
          + " ? "
          + (to.isFloat() ? floatLiteral(to, 1) : intLiteral(to, 1))
          + " : "
          + zero(to)
          + ")";
    }
    if (to == DType.BOOL) {
      return super.cast(to, value);
    }
    return "((" + typeName(to) + ") " + expr(value, false) + ")";
  }

  @Override
  String letDecl(DType t, String name, String value) {
    return "final " + typeName(t) + " " + name + " = " + value + ";";
  }

  @Override
  void forLoop(For f) {
    for (String p : f.pragmas()) {
      line("// pragma " + p);
    }
    if (f.kind() == ForKind.PARALLEL) {
      String stream = f.loopVar().dtype() == DType.INT64 ? "LongStream" : "IntStream";
      streams.add(stream);
      String lo = loopStart(f);
      String hi = loopEnd(f);
      if (f.loopVar().dtype() == DType.INT32 && f.extent().dtype() == DType.INT64) {
        hi = "(int) (" + hi + ")";
      }
      String prev = names.current(f.loopVar());
      String v = names.bind(f.loopVar(), f.loopVar().name());
      line(stream + ".range(" + lo + ", " + hi + ").parallel().forEach(" + v + " -> {");
      indent();
      hoistAllocations(f.body());
      loopBody(f);
      dedent();
      line("});");
      names.restore(f.loopVar(), prev);
    } else if (containsParallel(f.body())) {
      // A lambda may capture only (effectively) final locals; a for counter is neither.
      String lo = loopStart(f);
      String hi = loopEnd(f);
      String ty = typeName(f.loopVar().dtype());
      String c = names.fresh(f.loopVar().name() + "_counter");
      String prev = names.current(f.loopVar());
      String v = names.bind(f.loopVar(), f.loopVar().name());
      line("for (" + ty + " " + c + " = " + lo + "; " + c + " < " + hi + "; ++" + c + ") {");
      indent();
      line("final " + ty + " " + v + " = " + c + ";");
      loopBody(f);
      dedent();
      line("}");
      names.restore(f.loopVar(), prev);
    } else {
      innerFor(f);
    }
  }

  /**
   * Declares the constant-size arrays allocated inside serial loops of {@code region} once, at its
   * top: an allocation per loop iteration costs a zeroed heap array each time. A region without
   * parallel loops (a parallel loop's task, a serial function) takes all its constant-size arrays
   * from the thread's workspace ({@link #workspaceArray}), allocated once per thread.
   */
  private void hoistAllocations(Stmt region) {
    workspace = !containsParallel(region);
    for (Allocate a : JavaLoopForms.hoistableAllocations(region, workspace)) {
      String n = names.fresh(a.buffer().name());
      declareArray(a.buffer().dtype(), n, allocationSize(a));
      hoisted.put(a, n);
    }
    // One staging array per element type, as long as the region's longest staged row.
    Map<DType, Long> lengths = new java.util.EnumMap<>(DType.class);
    List<For> staged = JavaLoopForms.stagedLoops(region, func.params());
    for (For f : staged) {
      long len = ((IntImm) f.extent()).value();
      lengths.merge(((Store) f.body()).buffer().dtype(), len, Math::max);
    }
    // One window array per element type, as long as the region's longest window.
    Map<DType, Long> windowLengths = new java.util.EnumMap<>(DType.class);
    List<JavaRowSplit.Plan> plans = new ArrayList<>();
    List<For> split = splitLoops(region);
    for (For f : split) {
      JavaRowSplit.Plan p = JavaRowSplit.plan(f, localArrays::contains);
      plans.add(p);
      if (p.window() != null) {
        windowLengths.merge(p.window().dtype(), p.length(), Math::max);
      }
    }
    Map<DType, String> windowsByType = new java.util.EnumMap<>(DType.class);
    windowLengths.forEach(
        (t, len) -> {
          String n = names.fresh("window_" + typeName(t));
          declareArray(t, n, String.valueOf(len));
          windowsByType.put(t, n);
        });
    for (int i = 0; i < split.size(); i++) {
      splits.put(split.get(i), plans.get(i));
      if (plans.get(i).window() != null) {
        windows.put(split.get(i), windowsByType.get(plans.get(i).window().dtype()));
      }
    }
    Map<DType, String> arraysByType = new java.util.EnumMap<>(DType.class);
    lengths.forEach(
        (t, len) -> {
          String n = names.fresh("stage_" + typeName(t));
          declareArray(t, n, String.valueOf(len));
          arraysByType.put(t, n);
        });
    for (For f : staged) {
      staging.put(f, arraysByType.get(((Store) f.body()).buffer().dtype()));
    }
  }

  /**
   * Declares array {@code n} of {@code size} elements: from the thread's workspace where the region
   * allows and the size is a constant in the workspace's range, else a new array.
   */
  private void declareArray(DType t, String n, String size) {
    String ty = typeName(t);
    long bytes = size.matches("[0-9]+") ? Long.parseLong(size) * t.bytes() : -1;
    if (workspace && bytes >= MIN_WORKSPACE_BYTES && bytes <= MAX_WORKSPACE_BYTES) {
      line("final " + ty + "[] " + n + " = " + workspaceArray(ty, n, size) + ".get();");
    } else {
      line("final " + ty + "[] " + n + " = new " + ty + "[" + size + "];");
    }
  }

  /**
   * A static per-thread array of the class: {@code ThreadLocal<float[]>}, made on a thread's first
   * call. Safe to share between calls: a task or a serial function never waits for other tasks
   * while its arrays are live (it has no parallel loop inside), so one thread runs one at a time;
   * and the IR never reads an element it has not written in the same allocation's scope.
   */
  private String workspaceArray(String ty, String n, String size) {
    String field = "WORKSPACE_" + func.name() + "_" + n;
    workspaceFields.add(
        "private static final ThreadLocal<"
            + ty
            + "[]> "
            + field
            + " =\n    ThreadLocal.withInitial(() -> new "
            + ty
            + "["
            + size
            + "]);\n");
    return field;
  }

  /** The loops of {@code region} with a split plan, not inside a parallel loop nested in it. */
  private List<For> splitLoops(Stmt region) {
    List<For> out = new ArrayList<>();
    new StmtVisitor() {
      @Override
      public void visit(Stmt s) {
        if (s instanceof For f && f.kind() == ForKind.PARALLEL) {
          return;
        }
        if (s instanceof For f && JavaRowSplit.plan(f, localArrays::contains) != null) {
          out.add(f);
        }
        super.visit(s);
      }
    }.visit(region);
    return out;
  }

  private String allocationSize(Allocate a) {
    return a.size().dtype() == DType.INT64
        ? "(int) " + expr(a.size(), false)
        : expr(a.size(), true);
  }

  private static boolean containsParallel(Stmt s) {
    boolean[] found = {false};
    new StmtVisitor() {
      @Override
      public void visit(Stmt x) {
        if (x instanceof For f && f.kind() == ForKind.PARALLEL) {
          found[0] = true;
        }
        super.visit(x);
      }
    }.visit(s);
    return found[0];
  }

  @Override
  void allocate(Allocate a) {
    String prev = names.current(a.buffer());
    arrays.add(a.buffer());
    String n = hoisted.get(a);
    if (n != null) {
      names.restore(a.buffer(), n);
    } else {
      n = names.bind(a.buffer(), a.buffer().name());
      String ty = typeName(a.buffer().dtype());
      line("final " + ty + "[] " + n + " = new " + ty + "[" + allocationSize(a) + "];");
    }
    stmt(a.body());
    names.restore(a.buffer(), prev);
  }

  @Override
  void barrier(Barrier b) {
    serialBarrier(b, "Java");
  }
}
