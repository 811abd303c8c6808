package dev.kernelgen.autosched;

import dev.kernelgen.schedule.Stage;
import dev.kernelgen.schedule.ThreadTag;
import dev.kernelgen.te.IterVar;
import dev.kernelgen.te.Tensor;
import java.util.List;
import java.util.Map;

/**
 * A stage left at root without a reduction (an elementwise output, or a costly producer kept out of
 * a reduction): on the CPU its two outer data axes fused and run in parallel, its innermost
 * vectorized (one long axis: in chunks, each vectorized); on a GPU its data axes fused and split
 * into blocks of knob {@code threads} threads, one element per thread. Where it reads an operand
 * transposed, in tiles ({@link TransposeTiles}); on C, where its reads divide the columns by a
 * constant, in phases ({@link CpuColumnPhases}).
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
    Map<Tensor, Integer> transposed = TransposeTiles.transposedReads(state, st);
    if (!transposed.isEmpty()) {
      int tile =
          state.gpu() ? state.knob(st, "tile", 32, 16, 0) : state.knob(st, "tile", 16, 32, 8, 0);
      double work = 1;
      for (IterVar a : axes) {
        work *= CpuPackedTiling.nominal(ComputeDag.extent(a));
      }
      state.note(st, "work", work);
      state.note(
          st, state.gpu() ? "gpu.transposed_rows" : "cpu.transposed_rows", tile == 0 ? 1 : 0);
      if (tile > 0) {
        if (state.gpu()) {
          state.declare(st, "threads", THREADS);
          TransposeTiles.applyGpu(state, st, transposed, tile);
        } else {
          TransposeTiles.applyCpu(state, st, transposed, tile);
        }
        state.done(st);
        return;
      }
    }
    if (state.gpu()) {
      int threads = state.knob(st, "threads", THREADS);
      IterVar fused = axes.get(0);
      for (IterVar a : axes.subList(1, axes.size())) {
        fused = st.fuse(fused, a);
      }
      Stage.Split sp = st.split(fused, threads);
      st.bind(sp.outer(), ThreadTag.BLOCK_X);
      st.bind(sp.inner(), ThreadTag.THREAD_X);
      state.note(st, "threads", threads);
    } else {
      IterVar outer = axes.size() >= 3 ? st.fuse(axes.get(0), axes.get(1)) : axes.get(0);
      if (axes.size() == 1 && ComputeDag.extent(outer) >= 2L * CHUNK) {
        // One long axis: chunks in parallel, each a vectorized loop from a known start (split
        // among the threads at run time, the loop's parity and alignment were unknown to the C
        // compiler: a complex product over 2000006 interleaved floats, its parts chosen by the
        // index's parity, ran 1570 us so on 2 Zen 4 cores, its serial naive loops 1240, chunked
        // 686).
        Stage.Split sp = st.split(outer, CHUNK);
        st.parallel(sp.outer());
        st.vectorize(sp.inner());
        state.done(st);
        return;
      }
      st.parallel(outer);
      int phases = axes.size() >= 2 ? CpuColumnPhases.phases(state, st) : 0;
      if (phases > 0) {
        CpuColumnPhases.apply(st, phases);
      } else if (axes.size() >= 2 && vectorizable(axes.get(axes.size() - 1))) {
        st.vectorize(axes.get(axes.size() - 1));
      }
    }
    state.done(st);
  }

  /**
   * Whether a CPU vectorizes the innermost axis: not where it is shorter than {@value
   * #MIN_VECTOR_EXTENT} (a complex number's two parts, a pixel's three colours), whose vector would
   * be mostly masked lanes; the C compiler then unrolls it and vectorizes the loop around it (a
   * complex product over [1000003, 2]: with {@code omp simd} on the pair, each core ran it 2x
   * slower than one core's plain loops).
   */
  private static boolean vectorizable(IterVar inner) {
    long e = ComputeDag.extent(inner);
    return e <= 0 || e >= MIN_VECTOR_EXTENT;
  }

  /** The elements of a one-axis output's parallel chunk on CPUs. */
  static final int CHUNK = 4096;

  /** The shortest constant innermost axis vectorized on CPUs. */
  static final int MIN_VECTOR_EXTENT = 8;

  /** The choices of knob {@code threads} on GPUs. */
  private static final int[] THREADS = {256, 128, 512, 64, 1024};
}
