package dev.kernelgen.autosched;

import static dev.kernelgen.te.TE.FLOAT32;
import static org.assertj.core.api.Assertions.assertThat;

import dev.kernelgen.annotations.Target;
import dev.kernelgen.codegen.CCodegen;
import dev.kernelgen.lower.Lower;
import dev.kernelgen.schedule.Schedule;
import dev.kernelgen.te.Expr;
import dev.kernelgen.te.IterVar;
import dev.kernelgen.te.TE;
import dev.kernelgen.te.Tensor;
import dev.kernelgen.testing.Check;
import dev.kernelgen.topi.OpSchedules;
import java.util.EnumSet;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** A reduction that reads with a stride along the output's last axis is not vectorized there. */
class StridedReadsTest {
  /** A conv1d of stride 2, one zero on each side, as a user writes it: [2, c, len] x k. */
  static Tensor conv1dStride2(int c, int len, int k) {
    Tensor x = TE.placeholder("X", FLOAT32, 2, c, len);
    Tensor w = TE.placeholder("W", FLOAT32, k, c, 3);
    IterVar ci = TE.reduceAxis(c, "ci");
    IterVar kk = TE.reduceAxis(3, "kk");
    return TE.compute(
        "Conv1d",
        TE.shape(2, k, len / 2),
        (b, o, t) -> {
          Expr at = t.mul(2).add(kk.var()).sub(1);
          Expr in = TE.select(at.ge(0).and(at.lt(len)), x.at(b, ci.var(), at), 0.0);
          return TE.sum(in.mul(w.at(o, ci.var(), kk.var())), ci, kk);
        });
  }

  /**
   * Packed along the output channels, not vectorized along positions read two apart (the user
   * conv1d of the floor table: 40-50 ms so, 26 ms packed, 2-core Zen 4); equal to the oracle.
   */
  @Test
  void aStride2Conv1dIsPackedAlongItsChannels() {
    Tensor out = conv1dStride2(64, 4096, 128);
    Map<String, Integer> pick =
        AutoScheduler.untunedConfig(
                Target.C, List.of(out), SketchRules.defaults(), new AnalyticPredictor())
            .values();
    assertThat(pick).containsEntry("Conv1d.layout", CpuPackedTiling.BASE + 1);
    Tensor small = conv1dStride2(5, 38, 16);
    Schedule s = AutoScheduler.untuned(Target.C, List.of(small));
    Check.check(s, OpSchedules.args(s), Map.of(), EnumSet.of(Check.Backend.C), 1e-4, 1e-4);
  }

  /**
   * A vector-matrix product streams the matrix down its rows (the vector, small and reused, does
   * not count against it): runs of 256 columns a row, not 64 ([4096] x [4096, 4096] 3.35-3.9 ms so,
   * 3.0-3.4 ms, 2-core Zen 4); equal to the oracle at a ragged shape.
   */
  @Test
  void aVectorMatrixProductStreamsTheMatrixInLongRuns() {
    Tensor out = vecmat(4096, 4096);
    Map<String, Integer> pick =
        AutoScheduler.untunedConfig(
                Target.C, List.of(out), SketchRules.defaults(), new AnalyticPredictor())
            .values();
    assertThat(pick).containsEntry("Vecmat.tile0", 256);
    Schedule s = AutoScheduler.untuned(Target.C, List.of(vecmat(70, 300)));
    Check.check(s, OpSchedules.args(s), Map.of(), EnumSet.of(Check.Backend.C), 1e-4, 1e-4);
  }

  static Tensor vecmat(int rows, int cols) {
    Tensor a = TE.placeholder("A", FLOAT32, rows, cols);
    Tensor x = TE.placeholder("X", FLOAT32, rows);
    IterVar k = TE.reduceAxis(rows, "k");
    return TE.compute(
        "Vecmat", TE.shape(cols), j -> TE.sum(x.at(k.var()).mul(a.at(k.var(), j)), k));
  }

  /**
   * Attention scores of several heads pack the keys (read down their rows along the output's
   * columns), every head's at once: 16 heads of [128, 64] took 846-1604 us as dot products, 187-227
   * us packed (2-core Zen 4); a batched matmul's B, contiguous along the columns, is read in place.
   * Equal to the oracle at a ragged shape.
   */
  @Test
  void batchedKeysArePackedAndContiguousBatchedWeightsAreNot() {
    Map<String, Integer> pick =
        AutoScheduler.untunedConfig(
                Target.C,
                List.of(scores(16, 128, 64)),
                SketchRules.defaults(),
                new AnalyticPredictor())
            .values();
    assertThat(pick).containsEntry("Scores.layout", CpuPackedTiling.BASE + 2);
    Tensor small = scores(3, 37, 20);
    Map<String, Integer> packed =
        new java.util.TreeMap<>(
            AutoScheduler.untunedConfig(
                    Target.C, List.of(small), SketchRules.defaults(), new AnalyticPredictor())
                .values());
    packed.put("sketch", 0);
    packed.put("Scores.layout", CpuPackedTiling.BASE + 2);
    Schedule s =
        AutoScheduler.generate(
            Target.C, List.of(small), dev.kernelgen.spec.Knobs.configured(packed));
    assertThat(
            CCodegen.generate(
                List.of(Lower.lower(s, "k", OpSchedules.args(s), Target.C, null)), "m"))
        .contains("K_local");
    Check.check(s, OpSchedules.args(s), Map.of(), EnumSet.of(Check.Backend.C), 1e-4, 1e-4);
  }

  static Tensor scores(int heads, int seq, int d) {
    Tensor q = TE.placeholder("Q", FLOAT32, heads, seq, d);
    Tensor k = TE.placeholder("K", FLOAT32, heads, seq, d);
    IterVar r = TE.reduceAxis(d, "r");
    return TE.compute(
        "Scores",
        TE.shape(heads, seq, seq),
        (h, i, j) -> TE.sum(q.at(h, i, r.var()).mul(k.at(h, j, r.var())), r));
  }
}
