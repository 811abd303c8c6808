package dev.kernelgen.codegen;

import dev.kernelgen.te.Buffer;
import dev.kernelgen.te.DType;
import dev.kernelgen.te.Expr;
import dev.kernelgen.te.IntImm;
import dev.kernelgen.te.Load;
import dev.kernelgen.tir.For;
import dev.kernelgen.tir.Store;
import java.util.Collections;
import java.util.HashMap;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

/**
 * The Java printer's memory accesses and inner loops: loads and stores of arrays (local buffers)
 * and segments (parameters), and a loop without parallel loops inside printed in the forms of
 * {@link JavaLoopForms} (invariant loads before it, accumulators in locals, bulk copies, staged
 * rows) and {@link JavaRowSplit}. {@link JavaCodegen} adds the types, parallel loops and where
 * arrays are allocated.
 */
abstract class JavaLoopPrinter extends CLikePrinter {
  final Set<String> layouts = new TreeSet<>();
  final Set<Buffer> arrays = Collections.newSetFromMap(new IdentityHashMap<>());

  /** Elements read from a local variable instead of memory: hoisted loads and accumulators. */
  private final Map<JavaLoopForms.Access, String> localLoads = new HashMap<>();

  /** Elements written to a local variable instead of memory: accumulators. */
  private final Map<JavaLoopForms.Access, String> localStores = new HashMap<>();

  /** The staging array of each loop that stores a row of a parameter through one. */
  final Map<For, String> staging = new IdentityHashMap<>();

  /** The loops whose row of sums is split ({@link JavaRowSplit}), and their window arrays. */
  final Map<For, JavaRowSplit.Plan> splits = new IdentityHashMap<>();

  final Map<For, String> windows = new IdentityHashMap<>();

  final String layout(DType t) {
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

  /**
   * A loop without parallel loops inside, in the forms of {@link JavaLoopForms}: its invariant
   * loads read before it (under a check that it runs at all, unless its extent is a positive
   * constant), its accumulator in a local variable.
   */
  final void innerFor(For f) {
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
    String prev = null;
    if (p.window() != null) {
      String from = name(p.source()) + ", ";
      String start = copyStart(p.source(), p.sourceFirst());
      String to = window + ", 0, " + p.length() + ");";
      line(
          arrays.contains(p.source())
              ? "System.arraycopy(" + from + start + ", " + to
              : "MemorySegment.copy("
                  + from
                  + layout(p.source().dtype())
                  + ", "
                  + start
                  + ", "
                  + to);
      prev = names.current(p.window());
      names.restore(p.window(), window);
      arrays.add(p.window());
    }
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
    if (p.window() != null) {
      names.restore(p.window(), prev);
    }
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
    return first instanceof IntImm c
        ? b.dtype().bytes() * c.value() + "L"
        : b.dtype().bytes() + "L * " + expr(first, false);
  }

  /** The body of a loop whose statements all update {@code acc}: summed in a local variable. */
  private void rowBody(For f, JavaLoopForms.Access acc) {
    List<Store> stores = Store.sequence(f.body());
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
}
