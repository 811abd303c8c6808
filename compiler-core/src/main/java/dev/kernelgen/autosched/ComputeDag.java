package dev.kernelgen.autosched;

import dev.kernelgen.schedule.AttachType;
import dev.kernelgen.schedule.Schedule;
import dev.kernelgen.schedule.Stage;
import dev.kernelgen.te.Call;
import dev.kernelgen.te.Expr;
import dev.kernelgen.te.ExprMutator;
import dev.kernelgen.te.ExprVisitor;
import dev.kernelgen.te.FreeVars;
import dev.kernelgen.te.IntImm;
import dev.kernelgen.te.IterVar;
import dev.kernelgen.te.PlaceholderOp;
import dev.kernelgen.te.Substitute;
import dev.kernelgen.te.Tensor;
import dev.kernelgen.te.TensorRead;
import dev.kernelgen.te.Var;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Questions the sketch rules ask about the compute DAG of a schedule, looking through the stages
 * inlined so far: who reads a stage, at which indices, and whether a consumer reads a producer's
 * element more than once (reuse).
 */
final class ComputeDag {
  private ComputeDag() {}

  /** The stages that read {@code st}, looking through inlined stages to their readers. */
  static Set<Stage> readers(Schedule s, Stage st) {
    Set<Stage> out = new LinkedHashSet<>();
    for (Stage r : s.readers(st)) {
      if (r.attachType() == AttachType.INLINE) {
        out.addAll(readers(s, r));
      } else {
        out.add(r);
      }
    }
    return out;
  }

  /** {@code body} with every read of an inlined stage replaced by that stage's body. */
  static Expr expand(Schedule s, Expr body) {
    return new ExprMutator() {
      @Override
      public Expr mutate(Expr e) {
        if (e instanceof TensorRead r
            && !(r.tensor().op() instanceof PlaceholderOp)
            && s.stage(r.tensor()).attachType() == AttachType.INLINE) {
          Stage st = s.stage(r.tensor());
          Map<Var, Expr> sub = new HashMap<>();
          for (int d = 0; d < st.axis().size(); d++) {
            sub.put(st.axis().get(d).var(), mutate(r.indices().get(d)));
          }
          return mutate(Substitute.apply(st.body(), sub));
        }
        return super.mutate(e);
      }
    }.mutate(body);
  }

  /** The index lists at which {@code consumer} (inlined stages expanded) reads {@code t}. */
  static List<List<Expr>> reads(Schedule s, Stage consumer, Tensor t) {
    List<List<Expr>> out = new ArrayList<>();
    new ExprVisitor() {
      @Override
      public void visit(Expr e) {
        if (e instanceof TensorRead r && r.tensor() == t) {
          out.add(r.indices());
        }
        super.visit(e);
      }
    }.visit(expand(s, consumer.body()));
    return out;
  }

  /**
   * Whether {@code consumer} reads some element of {@code t} for several of its own elements: a
   * data axis of the consumer (extent other than 1) that no index of some read depends on.
   */
  static boolean reuses(Schedule s, Stage consumer, Tensor t) {
    return reusedAt(consumer, reads(s, consumer, t));
  }

  /** Whether {@code consumer} reads something and reads no tensor with reuse ({@link #reuses}). */
  static boolean readsWithoutReuse(Schedule s, Stage consumer) {
    return readsWithoutReuse(s, consumer, 0);
  }

  /**
   * As {@link #readsWithoutReuse(Schedule, Stage)}, except that tensors of at most {@code
   * smallBytes} (constant shapes) may be reused: a vector-matrix product's vector.
   */
  static boolean readsWithoutReuse(Schedule s, Stage consumer, long smallBytes) {
    Map<Tensor, List<List<Expr>>> reads = expandedReads(s, consumer);
    boolean streamed = false;
    boolean small = false;
    for (var e : reads.entrySet()) {
      if (!reusedAt(consumer, e.getValue())) {
        streamed = true;
      } else if (!small(e.getKey(), smallBytes)) {
        return false;
      } else {
        small = true;
      }
    }
    // Beside a small reused operand, the streamed ones are read once per element only where no
    // index slides a window (y + dy): a depthwise convolution's input is read by its neighbours
    // too.
    if (small) {
      for (var e : reads.entrySet()) {
        if (slides(consumer, e.getValue())) {
          return false;
        }
      }
    }
    return streamed;
  }

  /**
   * Whether the only reuse in {@code consumer}'s reads, beyond tensors of at most {@code
   * smallBytes} (a filter, a scale: the caches serve them), is windows overlapping: every other
   * tensor is read at indices that use every data axis, and some index slides (uses a data axis and
   * a reduce axis). A depthwise convolution (its input read by its neighbours only), a pooling
   * window; not a convolution over channels, a product, or a reduction without windows.
   */
  static boolean reusedOnlyThroughWindows(Schedule s, Stage consumer, long smallBytes) {
    boolean windows = false;
    for (var e : expandedReads(s, consumer).entrySet()) {
      if (reusedAt(consumer, e.getValue())) {
        if (!small(e.getKey(), smallBytes)) {
          return false;
        }
      } else {
        windows |= slides(consumer, e.getValue());
      }
    }
    return windows;
  }

  /** Whether {@code t} has a constant shape of at most {@code smallBytes}. */
  private static boolean small(Tensor t, long smallBytes) {
    return bytes(t) >= 0 && bytes(t) <= smallBytes;
  }

  /** Whether some index of {@code reads} slides a window: it uses a data and a reduce axis. */
  private static boolean slides(Stage consumer, List<List<Expr>> reads) {
    for (List<Expr> idx : reads) {
      for (Expr i : idx) {
        if (usesDataAxis(consumer, i) && usesReduceAxis(consumer, i)) {
          return true;
        }
      }
    }
    return false;
  }

  /** Whether {@code e} depends on a data axis of {@code consumer}. */
  static boolean usesDataAxis(Stage consumer, Expr e) {
    return usesAny(consumer.axis(), e);
  }

  /** Whether {@code e} depends on a reduce axis of {@code consumer}. */
  static boolean usesReduceAxis(Stage consumer, Expr e) {
    return usesAny(consumer.reduceAxis(), e);
  }

  private static boolean usesAny(List<IterVar> axes, Expr e) {
    for (IterVar a : axes) {
      if (FreeVars.uses(e, a.var())) {
        return true;
      }
    }
    return false;
  }

  /** The bytes of {@code t}, or -1 where its shape is symbolic. */
  private static long bytes(Tensor t) {
    long b = t.dtype().bytes();
    for (Expr d : t.shape()) {
      if (!(d instanceof IntImm c)) {
        return -1;
      }
      b *= c.value();
    }
    return b;
  }

  /**
   * Whether {@code consumer} reuses {@code t}, or {@code t} is an inlined stage (padding) that the
   * consumer's own body reads with reuse: staging such a tensor computes the inlined stage in the
   * load, bounds checks and all, once per element of the tile, not once per use.
   */
  static boolean reusesOrIsInlinedAndReused(Schedule s, Stage consumer, Tensor t) {
    return reusedAt(consumer, readsOrOwn(s, consumer, t));
  }

  /**
   * The index lists at which {@code consumer} reads {@code t}: inlined stages expanded, or where
   * {@code t} is itself inlined (and so expanded away), the consumer's own reads of it.
   */
  static List<List<Expr>> readsOrOwn(Schedule s, Stage consumer, Tensor t) {
    List<List<Expr>> r = reads(s, consumer, t);
    return r.isEmpty() && isInlined(s, t) ? directReads(consumer).getOrDefault(t, List.of()) : r;
  }

  /**
   * The stage of {@code t} where it is inlined so far and {@code consumer} is its only reader (a
   * padding read by one reduction): a stage the consumer's schedule may compute where it likes;
   * null for a placeholder or a stage read elsewhere.
   */
  static Stage inlinedOnlyInto(Schedule s, Stage consumer, Tensor t) {
    return isInlined(s, t) && readers(s, s.stage(t)).equals(Set.of(consumer)) ? s.stage(t) : null;
  }

  /** Whether {@code t} is a computed stage inlined into its readers. */
  static boolean isInlined(Schedule s, Tensor t) {
    return !(t.op() instanceof PlaceholderOp) && s.stage(t).attachType() == AttachType.INLINE;
  }

  /**
   * Whether some read at {@code reads} leaves a data axis of {@code consumer} unused, or uses it
   * only in a quotient by a constant (a grouped convolution's input channel {@code o / g * g + c}:
   * the {@code g} outputs of a group read the same inputs).
   */
  private static boolean reusedAt(Stage consumer, List<List<Expr>> reads) {
    for (List<Expr> idx : reads) {
      Set<Var> used = new HashSet<>();
      for (Expr i : idx) {
        used.addAll(distinguishing(i));
      }
      for (IterVar a : consumer.axis()) {
        if (!used.contains(a.var()) && !isOne(a)) {
          return true;
        }
      }
    }
    return false;
  }

  /**
   * The variables of {@code e} outside quotients by constants above 1: those whose every change may
   * change {@code e}.
   */
  private static Set<Var> distinguishing(Expr e) {
    Set<Var> out = new HashSet<>();
    new ExprVisitor() {
      @Override
      public void visit(Expr x) {
        if (x instanceof dev.kernelgen.te.Binary b
            && b.op() == dev.kernelgen.te.BinOp.FLOOR_DIV
            && b.b() instanceof IntImm c
            && c.value() > 1) {
          return;
        }
        if (x instanceof Var v) {
          out.add(v);
        }
        super.visit(x);
      }
    }.visit(e);
    return out;
  }

  /**
   * Whether every read of {@code t} by {@code consumer} is at exactly its data axes, in order (a
   * constant 0 counts for an axis of extent 1, as broadcasting reads it).
   */
  static boolean readsElementwise(Schedule s, Stage consumer, Tensor t) {
    List<List<Expr>> rs = reads(s, consumer, t);
    if (rs.isEmpty() || t.ndim() != consumer.axis().size()) {
      return false;
    }
    for (List<Expr> idx : rs) {
      for (int d = 0; d < idx.size(); d++) {
        IterVar a = consumer.axis(d);
        boolean same = idx.get(d) instanceof Var v && v == a.var();
        boolean unit = idx.get(d) instanceof IntImm c && c.value() == 0 && isOne(a);
        if (!same && !unit) {
          return false;
        }
      }
    }
    return true;
  }

  /**
   * The positions of {@code consumer}'s data axes that index its reads of {@code t} when each index
   * is one of its axes or a constant (a row read: softmax's maximum at [i, 0]); null otherwise.
   */
  static Set<Integer> rowAxes(Schedule s, Stage consumer, Tensor t) {
    Set<Integer> used = new HashSet<>();
    List<List<Expr>> rs = reads(s, consumer, t);
    if (rs.isEmpty()) {
      return null;
    }
    for (List<Expr> idx : rs) {
      for (Expr i : idx) {
        if (i instanceof IntImm) {
          continue;
        }
        int at = -1;
        for (int d = 0; d < consumer.axis().size(); d++) {
          if (i == consumer.axis(d).var()) {
            at = d;
          }
        }
        if (at < 0) {
          return null;
        }
        used.add(at);
      }
    }
    return used;
  }

  /**
   * Whether {@code consumer} (inlined stages expanded) reads some tensor with {@code v} in an index
   * other than the last: consecutive values of {@code v} then read memory far apart (a gather when
   * that loop is vectorized).
   */
  static boolean stridedAlong(Schedule s, Stage consumer, Var v) {
    return FreeVars.usedBeforeLastIndex(expand(s, consumer.body()), v, null);
  }

  /**
   * Whether a read of {@code consumer} (inlined stages expanded) steps by other than one element
   * along {@code v} in its last index: a pooling window of stride 2, {@code A[..., 2 * x + dx]}.
   * Vectorized, such a loop loads and shuffles (or, behind padding's bound checks, loads masked)
   * per lane.
   */
  static boolean nonUnitStrideAlong(Schedule s, Stage consumer, Var v) {
    boolean[] found = {false};
    new ExprVisitor() {
      @Override
      public void visit(Expr e) {
        if (e instanceof TensorRead r && !r.indices().isEmpty()) {
          Expr last = r.indices().get(r.indices().size() - 1);
          if (FreeVars.uses(last, v)) {
            Long step = dev.kernelgen.arith.Simplifier.step(last, v);
            found[0] |= !(step != null && (step == 1 || step == 0));
          }
        }
        super.visit(e);
      }
    }.visit(expand(s, consumer.body()));
    return found[0];
  }

  /**
   * For each tensor {@code consumer} reads (inlined stages expanded), the positions of its data
   * axes that the read's indices depend on: what a tile of the consumer loads of that tensor.
   */
  static List<Set<Integer>> axesOfReads(Schedule s, Stage consumer) {
    List<Set<Integer>> out = new ArrayList<>();
    for (List<List<Expr>> reads : readsOf(expand(s, consumer.body())).values()) {
      out.add(axesUsed(consumer, reads));
    }
    return out;
  }

  /**
   * Each tensor that {@code consumer} reads, inlined stages expanded, with the indices of each of
   * its reads, in the order first read.
   */
  static Map<Tensor, List<List<Expr>>> expandedReads(Schedule s, Stage consumer) {
    return readsOf(expand(s, consumer.body()));
  }

  /**
   * Each tensor that {@code consumer}'s own body reads (inlined stages not expanded), with the
   * indices of each of its reads, in the order first read.
   */
  static Map<Tensor, List<List<Expr>>> directReads(Stage consumer) {
    return readsOf(consumer.body());
  }

  private static Map<Tensor, List<List<Expr>>> readsOf(Expr body) {
    Map<Tensor, List<List<Expr>>> out = new java.util.LinkedHashMap<>();
    new ExprVisitor() {
      @Override
      public void visit(Expr e) {
        if (e instanceof TensorRead r) {
          out.computeIfAbsent(r.tensor(), t -> new ArrayList<>()).add(r.indices());
        }
        super.visit(e);
      }
    }.visit(body);
    return out;
  }

  /** The positions of {@code consumer}'s data axes that some of {@code reads}' indices use. */
  static Set<Integer> axesUsed(Stage consumer, List<List<Expr>> reads) {
    Set<Integer> used = new java.util.TreeSet<>();
    for (List<Expr> idx : reads) {
      for (Expr i : idx) {
        for (int d = 0; d < consumer.axis().size(); d++) {
          if (FreeVars.uses(i, consumer.axis(d).var())) {
            used.add(d);
          }
        }
      }
    }
    return used;
  }

  /** Whether {@code e} calls an intrinsic (exp, sqrt, ...): too costly to recompute per reuse. */
  static boolean callsIntrinsic(Expr e) {
    return contains(e, Call.class);
  }

  /** Whether {@code e} selects (a padding's bounds check). */
  static boolean selects(Expr e) {
    return contains(e, dev.kernelgen.te.Select.class);
  }

  private static boolean contains(Expr e, Class<? extends Expr> kind) {
    boolean[] found = {false};
    new ExprVisitor() {
      @Override
      public void visit(Expr x) {
        found[0] |= kind.isInstance(x);
        super.visit(x);
      }
    }.visit(e);
    return found[0];
  }

  /** The constant extent of {@code iv}, or -1 when it is symbolic. */
  static long extent(IterVar iv) {
    return iv.dom().extent() instanceof IntImm c ? c.value() : -1;
  }

  static boolean isOne(IterVar iv) {
    return extent(iv) == 1;
  }
}
