package dev.kernelgen.properties;

import dev.kernelgen.schedule.AttachType;
import dev.kernelgen.schedule.Schedule;
import dev.kernelgen.schedule.Stage;
import dev.kernelgen.schedule.ThreadTag;
import dev.kernelgen.te.IterVar;
import dev.kernelgen.tir.ForKind;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Random;
import java.util.Set;

/**
 * Applies a random, legal-by-construction sequence of schedule primitives: splits (by factor or
 * nparts, including factors that do not divide), reorders of leaf loops, fuses of adjacent loops of
 * one kind, compute_inline of injective stages, compute_at of producers at loops of their consumers
 * (deep enough that every other consumer is still inside), unroll, vectorize of an innermost data
 * loop and parallel of an outermost data loop of a stage at root.
 *
 * <p>Stages are visited consumers first, so a consumer's loops are final before a producer picks
 * one of them to be computed at.
 */
final class ScheduleFuzzer {
  private static final long[] FACTORS = {1, 2, 3, 4, 5, 7, 8, 16};
  private static final int MAX_LOOPS = 7;

  private final Schedule schedule;
  private final Random rnd;

  private ScheduleFuzzer(Schedule schedule, Random rnd) {
    this.schedule = schedule;
    this.rnd = rnd;
  }

  static void randomize(Schedule schedule, Random rnd) {
    new ScheduleFuzzer(schedule, rnd).run();
  }

  private void run() {
    List<Stage> order = new ArrayList<>(schedule.stages());
    Collections.reverse(order);
    for (Stage st : order) {
      if (st.isPlaceholder()) {
        continue;
      }
      if (!st.isOutput() && !st.hasReduction() && rnd.nextInt(3) == 0) {
        st.computeInline();
        continue;
      }
      int ops = rnd.nextInt(5);
      for (int k = 0; k < ops; k++) {
        loopOp(st);
      }
      if (!st.isOutput() && st.axis().size() > 1 && rnd.nextInt(3) == 0) {
        List<IterVar> dims = new ArrayList<>(st.axis());
        Collections.shuffle(dims, rnd);
        st.reorderStorage(dims.toArray(IterVar[]::new));
      }
      boolean attached = !st.isOutput() && rnd.nextInt(3) != 0 && computeAt(st);
      annotate(st, attached);
    }
  }

  private <T> T pick(List<T> list) {
    return list.get(rnd.nextInt(list.size()));
  }

  private void loopOp(Stage st) {
    List<IterVar> leaves = st.leafIterVars();
    switch (rnd.nextInt(3)) {
      case 0 -> {
        if (leaves.size() >= MAX_LOOPS) {
          return;
        }
        IterVar iv = pick(leaves);
        long f = FACTORS[rnd.nextInt(FACTORS.length)];
        if (rnd.nextInt(4) == 0) {
          st.splitNparts(iv, f);
        } else {
          st.split(iv, f);
        }
      }
      case 1 -> {
        List<Integer> adjacent = new ArrayList<>();
        for (int p = 0; p + 1 < leaves.size(); p++) {
          if (leaves.get(p).isReduce() == leaves.get(p + 1).isReduce()) {
            adjacent.add(p);
          }
        }
        if (!adjacent.isEmpty()) {
          int p = pick(adjacent);
          st.fuse(leaves.get(p), leaves.get(p + 1));
        }
      }
      default -> {
        if (leaves.size() < 2) {
          return;
        }
        List<IterVar> subset = new ArrayList<>();
        for (IterVar iv : leaves) {
          if (rnd.nextBoolean()) {
            subset.add(iv);
          }
        }
        if (subset.size() < 2) {
          subset = new ArrayList<>(leaves);
        }
        Collections.shuffle(subset, rnd);
        st.reorder(subset.toArray(IterVar[]::new));
      }
    }
  }

  /** The non-inlined stages that read {@code st}, looking through inlined readers. */
  private Set<Stage> effectiveReaders(Stage st) {
    Set<Stage> out = new LinkedHashSet<>();
    for (Stage r : schedule.readers(st)) {
      if (r.attachType() == AttachType.INLINE) {
        out.addAll(effectiveReaders(r));
      } else {
        out.add(r);
      }
    }
    return out;
  }

  private static Stage attachedTo(Stage s) {
    return s.attachType() == AttachType.SCOPE ? s.attachStage() : null;
  }

  /**
   * Computes {@code st} at a random loop of a consumer, or of a stage a consumer is computed in,
   * such that every consumer runs inside that loop. Returns false where there is none.
   */
  private boolean computeAt(Stage st) {
    Set<Stage> readers = effectiveReaders(st);
    List<Stage> targets = new ArrayList<>();
    for (Stage r : readers) {
      for (Stage t = r; t != null; t = attachedTo(t)) {
        if (!targets.contains(t)) {
          targets.add(t);
        }
      }
    }
    Collections.shuffle(targets, rnd);
    for (Stage target : targets) {
      List<IterVar> loops = target.leafIterVars();
      int deepest = loops.size() - 1;
      boolean ok = true;
      for (Stage r : readers) {
        if (r == target) {
          continue;
        }
        Stage q = r;
        while (q != null && attachedTo(q) != target) {
          q = attachedTo(q);
        }
        if (q == null) {
          ok = false;
          break;
        }
        deepest = Math.min(deepest, loops.indexOf(q.attachIterVar()));
      }
      if (ok) {
        st.computeAt(target, loops.get(rnd.nextInt(deepest + 1)));
        return true;
      }
    }
    return false;
  }

  private void annotate(Stage st, boolean attached) {
    List<IterVar> leaves = st.leafIterVars();
    if (rnd.nextInt(3) == 0) {
      st.unroll(pick(leaves));
    }
    IterVar innermost = leaves.getLast();
    if (!innermost.isReduce() && rnd.nextInt(3) == 0) {
      st.vectorize(innermost);
    }
    IterVar outermost = leaves.getFirst();
    if (!attached && !outermost.isReduce() && rnd.nextInt(3) == 0) {
      st.parallel(outermost);
    }
    // Thread bindings run serially on CPU targets; virtual threads are unrolled.
    if (rnd.nextInt(6) == 0) {
      List<String> tags = new ArrayList<>(ThreadTag.ALL);
      Collections.shuffle(tags, rnd);
      for (int k = 0; k < 2; k++) {
        IterVar iv = pick(leaves);
        if (!iv.isReduce() && st.attr(iv).kind() == ForKind.SERIAL) {
          st.bind(iv, tags.get(k));
        }
      }
    }
    // A pragma only on a plain loop: C puts user pragmas after the omp ones, which breaks a
    // parallel or simd loop (a codegen limitation, reported separately).
    IterVar p = pick(leaves);
    if (rnd.nextInt(8) == 0 && st.attr(p).kind() == ForKind.SERIAL) {
      st.pragma(p, "GCC unroll 2");
    }
  }
}
