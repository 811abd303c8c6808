package dev.kernelgen.autosched;

import dev.kernelgen.schedule.Stage;
import dev.kernelgen.schedule.ThreadTag;
import dev.kernelgen.te.IterVar;
import java.util.List;

/**
 * A stage left at root without a reduction (an elementwise output, or a costly producer kept out of
 * a reduction): on the CPU its two outer data axes fused and run in parallel, its innermost
 * vectorized (in tiles where it reads an operand transposed: {@link CpuTransposeTiles}); on a GPU
 * its data axes fused and split into blocks of knob {@code threads} threads, one element per
 * thread.
 */
final class ElementwiseRoot implements SketchRule {
  @Override
  public String name() {
    return "elementwise_root";
  }

  @Override
  public boolean applies(SketchState state, Stage st) {
    return !st.hasReduction() && !st.axis().isEmpty();
  }

  @Override
  public void apply(SketchState state, Stage st) {
    List<IterVar> axes = st.axis();
    if (state.gpu()) {
      int threads = state.knob(st, "threads", 256, 128, 512, 64, 1024);
      IterVar fused = axes.get(0);
      for (IterVar a : axes.subList(1, axes.size())) {
        fused = st.fuse(fused, a);
      }
      Stage.Split sp = st.split(fused, threads);
      st.bind(sp.outer(), ThreadTag.BLOCK_X);
      st.bind(sp.inner(), ThreadTag.THREAD_X);
      state.note(st, "threads", threads);
    } else {
      java.util.Map<dev.kernelgen.te.Tensor, Integer> transposed =
          CpuTransposeTiles.transposedReads(state, st);
      if (!transposed.isEmpty()) {
        int tile = state.knob(st, "tile", 16, 32, 8, 0);
        double work = 1;
        for (IterVar a : axes) {
          work *= CpuPackedTiling.nominal(ComputeDag.extent(a));
        }
        state.note(st, "work", work);
        state.note(st, "cpu.transposed_rows", tile == 0 ? 1 : 0);
        if (tile > 0) {
          CpuTransposeTiles.apply(state, st, transposed, tile);
          state.done(st);
          return;
        }
      }
      IterVar outer = axes.size() >= 3 ? st.fuse(axes.get(0), axes.get(1)) : axes.get(0);
      st.parallel(outer);
      if (axes.size() >= 2) {
        st.vectorize(axes.get(axes.size() - 1));
      }
    }
    state.done(st);
  }
}
