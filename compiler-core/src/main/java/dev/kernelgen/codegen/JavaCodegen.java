package dev.kernelgen.codegen;

import dev.kernelgen.te.BinOp;
import dev.kernelgen.te.Buffer;
import dev.kernelgen.te.DType;
import dev.kernelgen.te.Expr;
import dev.kernelgen.te.IntImm;
import dev.kernelgen.te.Intrinsic;
import dev.kernelgen.te.Load;
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
import java.util.HashMap;
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
 * JavaLoopForms}): accumulators in local variables, loop-invariant loads read before the loop,
 * constant-size local arrays allocated once per function or parallel task, contiguous copies as
 * bulk copies, rows of a parameter staged in an array so that their loop is over arrays.
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
public final class JavaCodegen extends CLikePrinter {
  private final Set<String> layouts = new TreeSet<>();
  private final Set<String> streams = new TreeSet<>();
  private final Set<Buffer> arrays = Collections.newSetFromMap(new IdentityHashMap<>());

  /** Elements read from a local variable instead of memory: hoisted loads and accumulators. */
  private final Map<JavaLoopForms.Access, String> localLoads = new HashMap<>();

  /** Elements written to a local variable instead of memory: accumulators. */
  private final Map<JavaLoopForms.Access, String> localStores = new HashMap<>();

  /** The identifiers of allocations already declared at the top of their function or task. */
  private final Map<Allocate, String> hoisted = new IdentityHashMap<>();

  /** The staging array of each loop that stores a row of a parameter through one. */
  private final Map<For, String> staging = new IdentityHashMap<>();

  /** The loops whose row of sums is split ({@link JavaRowSplit}), and their window arrays. */
  private final Map<For, JavaRowSplit.Plan> splits = new IdentityHashMap<>();

  private final Map<For, String> windows = new IdentityHashMap<>();

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
    g.printAll(funcs);
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

  private String layout(DType t) {
    String l =
        switch (t) {
          case BOOL -> "JAVA_BOOLEAN";
          case INT32 -> "JAVA_INT";
          case INT64 -> "JAVA_LONG";
          case FLOAT32 -> "JAVA_FLOAT";
          case FLOAT64 -> "JAVA_DOUBLE";
        };
    layouts.add(l);
    return l;
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

  private String arrayIndex(Expr index) {
    return index.dtype() == DType.INT64 ? "(int) " + expr(index, false) : expr(index, true);
  }

  @Override
  String load(Buffer b, Expr index) {
    String local = localLoads.get(new JavaLoopForms.Access(b, index));
    if (local != null) {
      return local;
    }
    if (arrays.contains(b)) {
      return name(b) + "[" + arrayIndex(index) + "]";
    }
    return name(b) + ".getAtIndex(" + layout(b.dtype()) + ", " + expr(index, true) + ")";
  }

  @Override
  String store(Buffer b, Expr index, String value) {
    String local = localStores.get(new JavaLoopForms.Access(b, index));
    if (local != null) {
      return local + " = " + value + ";";
    }
    if (arrays.contains(b)) {
      return name(b) + "[" + arrayIndex(index) + "] = " + value + ";";
    }
    return name(b)
        + ".setAtIndex("
        + layout(b.dtype())
        + ", "
        + expr(index, true)
        + ", "
        + value
        + ");";
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
   * A loop without parallel loops inside, in the forms of {@link JavaLoopForms}: its invariant
   * loads read before it (under a check that it runs at all, unless its extent is a positive
   * constant), its accumulator in a local variable.
   */
  private void innerFor(For f) {
    Store copy = JavaLoopForms.contiguousCopy(f);
    if (copy != null
        && !substituted(copy.buffer())
        && !substituted(((Load) copy.value()).buffer())) {
      bulkCopy(f, copy);
      return;
    }
    List<Load> invariant = JavaLoopForms.invariantLoads(f);
    JavaLoopForms.Access reduction = JavaLoopForms.loopAccumulator(f);
    JavaLoopForms.Access row = reduction == null ? JavaLoopForms.rowAccumulator(f) : null;
    JavaRowSplit.Plan split = splits.get(f);
    if (invariant.isEmpty()
        && reduction == null
        && row == null
        && split == null
        && !staging.containsKey(f)) {
      serialFor(f, List.of());
      return;
    }
    boolean guard =
        (!invariant.isEmpty() || reduction != null)
            && !(f.extent() instanceof IntImm e && e.value() > 0);
    if (guard) {
      line("if (" + expr(f.extent(), false) + " > 0) {");
      indent();
    }
    for (Load l : invariant) {
      String value = load(l.buffer(), l.index());
      String n = names.fresh(l.buffer().name() + "_v");
      line("final " + typeName(l.dtype()) + " " + n + " = " + value + ";");
      localLoads.put(JavaLoopForms.Access.of(l), n);
    }
    String stage = staging.get(f);
    if (split != null) {
      splitRow(f, split);
    } else if (stage != null) {
      Store st = (Store) f.body();
      String lo = f.min() instanceof IntImm m && m.value() == 0 ? "" : " - " + expr(f.min(), false);
      serialFor(
          f,
          List.of(),
          () -> line(stage + "[" + name(f.loopVar()) + lo + "] = " + expr(st.value(), true) + ";"));
      line(
          "MemorySegment.copy("
              + stage
              + ", 0, "
              + name(st.buffer())
              + ", "
              + layout(st.buffer().dtype())
              + ", "
              + copyStart(st.buffer(), JavaLoopForms.first(st.index(), f))
              + ", "
              + expr(f.extent(), true)
              + ");");
    } else if (reduction != null) {
      String acc = accumulator(reduction);
      line(typeName(reduction.buffer().dtype()) + " " + acc + " = " + load(reduction) + ";");
      bindLocal(reduction, acc);
      serialFor(f, List.of());
      unbindLocal(reduction);
      line(store(reduction.buffer(), reduction.index(), acc));
    } else if (row != null) {
      serialFor(f, List.of(), () -> rowBody(f, row));
    } else {
      serialFor(f, List.of());
    }
    for (Load l : invariant) {
      localLoads.remove(JavaLoopForms.Access.of(l));
    }
    if (guard) {
      dedent();
      line("}");
    }
  }

  /** A row of sums split into loops over a window ({@link JavaRowSplit}). */
  private void splitRow(For f, JavaRowSplit.Plan p) {
    String window = windows.get(f);
    String from = name(p.source()) + ", ";
    String start = copyStart(p.source(), p.sourceFirst());
    line(
        arrays.contains(p.source())
            ? "System.arraycopy(" + from + start + ", " + window + ", 0, " + p.length() + ");"
            : "MemorySegment.copy("
                + from
                + layout(p.source().dtype())
                + ", "
                + start
                + ", "
                + window
                + ", 0, "
                + p.length()
                + ");");
    String prev = names.current(p.window());
    names.restore(p.window(), window);
    arrays.add(p.window());
    Load element = Load.of(p.acc().buffer(), p.acc().index());
    for (int g = 0; g < p.groups().size(); g++) {
      Expr value = g == 0 ? p.init() : element;
      for (Expr term : p.groups().get(g)) {
        value = dev.kernelgen.te.Binary.of(dev.kernelgen.te.BinOp.ADD, value, term);
      }
      Expr sum = value;
      serialFor(
          f, List.of(), () -> line(store(p.acc().buffer(), p.acc().index(), expr(sum, true))));
    }
    names.restore(p.window(), prev);
  }

  private boolean substituted(Buffer b) {
    return localLoads.keySet().stream().anyMatch(a -> a.buffer() == b)
        || localStores.keySet().stream().anyMatch(a -> a.buffer() == b);
  }

  /** A contiguous copy as one call: System.arraycopy or MemorySegment.copy. */
  private void bulkCopy(For f, Store st) {
    Load src = (Load) st.value();
    boolean guard = !(f.extent() instanceof IntImm e && e.value() > 0);
    if (guard) {
      line("if (" + expr(f.extent(), false) + " > 0) {");
      indent();
    }
    String count = expr(f.extent(), true);
    String s = copyStart(src.buffer(), JavaLoopForms.first(src.index(), f));
    String d = copyStart(st.buffer(), JavaLoopForms.first(st.index(), f));
    String from = name(src.buffer());
    String to = name(st.buffer());
    boolean srcArray = arrays.contains(src.buffer());
    boolean dstArray = arrays.contains(st.buffer());
    if (srcArray && dstArray) {
      line("System.arraycopy(" + from + ", " + s + ", " + to + ", " + d + ", " + count + ");");
    } else {
      String fromArgs = srcArray ? from + ", " + s : from + ", " + layout(src.dtype()) + ", " + s;
      String toArgs = dstArray ? to + ", " + d : to + ", " + layout(st.buffer().dtype()) + ", " + d;
      line("MemorySegment.copy(" + fromArgs + ", " + toArgs + ", " + count + ");");
    }
    if (guard) {
      dedent();
      line("}");
    }
  }

  /** The first element of a copy: an int index into an array, a byte offset into a segment. */
  private String copyStart(Buffer b, Expr first) {
    if (arrays.contains(b)) {
      return first.dtype() == DType.INT64 ? "(int) " + expr(first, false) : expr(first, true);
    }
    return b.dtype().bytes() + "L * " + expr(first, false);
  }

  /** The body of a loop whose statements all update {@code acc}: summed in a local variable. */
  private void rowBody(For f, JavaLoopForms.Access acc) {
    List<Store> stores = JavaLoopForms.stores(f.body());
    String n = accumulator(acc);
    String ty = typeName(acc.buffer().dtype());
    Store first = stores.get(0);
    int from = 0;
    if (JavaLoopForms.readsElement(first.value(), acc)) {
      line(ty + " " + n + " = " + load(acc) + ";");
    } else {
      line(ty + " " + n + " = " + expr(first.value(), true) + ";");
      from = 1;
    }
    bindLocal(acc, n);
    for (Store st : stores.subList(from, stores.size())) {
      stmt(st);
    }
    unbindLocal(acc);
    line(store(acc.buffer(), acc.index(), n));
  }

  private String accumulator(JavaLoopForms.Access acc) {
    return names.fresh(acc.buffer().name() + "_acc");
  }

  private String load(JavaLoopForms.Access acc) {
    return load(acc.buffer(), acc.index());
  }

  private void bindLocal(JavaLoopForms.Access acc, String n) {
    localLoads.put(acc, n);
    localStores.put(acc, n);
  }

  private void unbindLocal(JavaLoopForms.Access acc) {
    localLoads.remove(acc);
    localStores.remove(acc);
  }

  /**
   * Declares the constant-size arrays allocated inside serial loops of {@code region} once, at its
   * top: an allocation per loop iteration costs a zeroed heap array each time.
   */
  private void hoistAllocations(Stmt region) {
    for (Allocate a : JavaLoopForms.hoistableAllocations(region)) {
      String n = names.fresh(a.buffer().name());
      String ty = typeName(a.buffer().dtype());
      line("final " + ty + "[] " + n + " = new " + ty + "[" + allocationSize(a) + "];");
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
      windowLengths.merge(p.window().dtype(), p.length(), Math::max);
    }
    Map<DType, String> windowsByType = new java.util.EnumMap<>(DType.class);
    windowLengths.forEach(
        (t, len) -> {
          String n = names.fresh("window_" + typeName(t));
          line("final " + typeName(t) + "[] " + n + " = new " + typeName(t) + "[" + len + "];");
          windowsByType.put(t, n);
        });
    for (int i = 0; i < split.size(); i++) {
      splits.put(split.get(i), plans.get(i));
      windows.put(split.get(i), windowsByType.get(plans.get(i).window().dtype()));
    }
    Map<DType, String> arraysByType = new java.util.EnumMap<>(DType.class);
    lengths.forEach(
        (t, len) -> {
          String n = names.fresh("stage_" + typeName(t));
          line("final " + typeName(t) + "[] " + n + " = new " + typeName(t) + "[" + len + "];");
          arraysByType.put(t, n);
        });
    for (For f : staged) {
      staging.put(f, arraysByType.get(((Store) f.body()).buffer().dtype()));
    }
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
