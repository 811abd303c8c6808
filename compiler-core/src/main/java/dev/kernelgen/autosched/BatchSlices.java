package dev.kernelgen.autosched;

import dev.kernelgen.annotations.Target;
import dev.kernelgen.schedule.AttachType;
import dev.kernelgen.schedule.Schedule;
import dev.kernelgen.schedule.Stage;
import dev.kernelgen.te.Expr;
import dev.kernelgen.te.IterVar;
import dev.kernelgen.te.Tensor;
import java.util.ArrayList;
import java.util.List;

/**
 * On C, a root stage without reduction whose tiled producers are large and share its leading
 * (batch) axis runs one batch element at a time, in parallel over the batch, each element's
 * producers computed in it: their temporaries then hold one element and stay in cache. A Winograd
 * convolution's inverse transform reads the (m+2)^2 products of its tile, 3.2 MB a [64,56,56] image
 * for 64 output channels: over a batch of 32, computed for the whole batch first, the products went
 * to memory and back (54 ms, against 32-38 ms image by image, on 2 Zen 4 cores).
 *
 * <p>It applies where the stage's leading axis has a constant extent of at least {@link #MIN_BATCH}
 * and every read of each producer indexes the producer's leading axis (of the same extent) by that
 * axis alone, and where those producers hold more than {@link #MIN_BYTES} per batch element. The
 * rest of the stage is {@link ElementwiseRoot}'s, without its parallel loop. (The producers' own
 * parallel loops then run inside the batch's, serially: OpenMP does not nest by default.)
 */
final class BatchSlices implements SketchRule {
  /** The fewest batch elements: the batch loop is the parallel one, and must feed the cores. */
  static final long MIN_BATCH = 4;

  /** Producers smaller than this per batch element stay in cache anyway. */
  static final long MIN_BYTES = 1 << 20;

  @Override
  public String name() {
    return "batch_slices";
  }

  @Override
  public boolean applies(SketchState state, Stage st) {
    return !producers(state, st).isEmpty();
  }

  @Override
  public void apply(SketchState state, Stage st) {
    List<IterVar> axes = st.axis();
    IterVar batch = axes.get(0);
    st.parallel(batch);
    if (axes.size() >= 2) {
      st.vectorize(axes.get(axes.size() - 1));
    }
    for (Stage p : producers(state, st)) {
      p.computeAt(st, batch);
    }
    state.note(st, "cpu.batch_slices", 1);
    state.done(st);
  }

  /**
   * The producers computed per batch element of {@code st}; empty where the rule does not apply.
   */
  private static List<Stage> producers(SketchState state, Stage st) {
    List<Stage> out = new ArrayList<>();
    if (state.target() != Target.C
        || st.hasReduction()
        || st.attachType() != AttachType.ROOT
        || st.axis().size() < 2) {
      return out;
    }
    IterVar batch = st.axis(0);
    long n = ComputeDag.extent(batch);
    if (n < MIN_BATCH) {
      return out;
    }
    Schedule s = state.schedule();
    long bytes = 0;
    for (Tensor t : st.tensor().op().inputs()) {
      if (t.op() instanceof dev.kernelgen.te.PlaceholderOp) {
        continue;
      }
      Stage p = s.stage(t);
      // A tiled reduction is done and at root (its accumulation, a cache_write, is attached to it).
      if (!state.isDone(p)
          || p.attachType() != AttachType.ROOT
          || ComputeDag.readers(s, p).size() != 1
          || ComputeDag.extent(p.axis(0)) != n) {
        continue;
      }
      boolean sliced = true;
      for (List<Expr> read : ComputeDag.reads(s, st, t)) {
        sliced &= read.get(0).equals(batch.var());
      }
      if (!sliced) {
        continue;
      }
      long elements = 1;
      for (IterVar a : p.axis().subList(1, p.axis().size())) {
        elements *= Math.max(ComputeDag.extent(a), 1);
      }
      bytes += elements * t.dtype().bytes();
      out.add(p);
    }
    return bytes > MIN_BYTES ? out : List.of();
  }
}
