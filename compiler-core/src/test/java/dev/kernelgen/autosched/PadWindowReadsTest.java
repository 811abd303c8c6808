package dev.kernelgen.autosched;

import static dev.kernelgen.te.TE.FLOAT32;
import static dev.kernelgen.te.TE.compute;
import static dev.kernelgen.te.TE.maximum;
import static dev.kernelgen.te.TE.minimum;
import static dev.kernelgen.te.TE.placeholder;
import static dev.kernelgen.te.TE.reduceAxis;
import static dev.kernelgen.te.TE.select;
import static dev.kernelgen.te.TE.shape;
import static dev.kernelgen.te.TE.sum;
import static org.assertj.core.api.Assertions.assertThat;

import dev.kernelgen.annotations.Target;
import dev.kernelgen.schedule.AttachType;
import dev.kernelgen.schedule.Schedule;
import dev.kernelgen.schedule.Stage;
import dev.kernelgen.te.Expr;
import dev.kernelgen.te.IterVar;
import dev.kernelgen.te.Tensor;
import dev.kernelgen.testing.Check;
import dev.kernelgen.topi.GpuCheck;
import dev.kernelgen.topi.OpSchedules;
import java.util.EnumSet;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * {@link PadWindowReads}: on CPUs a window's padding written inside its sum becomes a padded copy
 * of the input (then computed per task like topi's pad), on GPUs inlined where it is read; selects
 * that are not a read's bounds leave the input alone. Every pick equals the oracle.
 */
class PadWindowReadsTest {
  /** A 3x3 depthwise filter of stride 2 and dilation 2, its padding of 2 inside the sum. */
  static Tensor depthwiseStridedDilated(double outside) {
    Tensor x = placeholder("X", FLOAT32, 1, 5, 17, 19);
    Tensor w = placeholder("W", FLOAT32, 5, 3, 3);
    IterVar ky = reduceAxis(3, "ky");
    IterVar kx = reduceAxis(3, "kx");
    return compute(
        "Dw",
        shape(1, 5, 9, 10),
        (n, c, i, j) -> {
          Expr iy = i.mul(2).add(ky.var().mul(2)).sub(2);
          Expr ix = j.mul(2).add(kx.var().mul(2)).sub(2);
          Expr in =
              select(iy.ge(0).and(iy.lt(17)), x.at(n, c, iy, minimum(maximum(ix, 0), 18)), outside)
                  .add(
                      select(
                          ix.ge(0).and(ix.lt(19)),
                          x.at(n, c, minimum(maximum(iy, 0), 16), ix),
                          0.0));
          return sum(in.mul(w.at(c, ky.var(), kx.var())), ky, kx);
        });
  }

  @Test
  void cpusReadAPaddedCopyGpusReadInPlace() {
    Tensor y = depthwiseStridedDilated(0.0);
    for (Target t : List.of(Target.C, Target.JAVA)) {
      Schedule s = AutoScheduler.untuned(t, List.of(y));
      assertThat(names(s)).as("%s", t).contains("X.pad");
    }
    for (Target t : List.of(Target.CUDA, Target.OPENCL)) {
      // A thread per output (this depthwise filter's pick) reads in place; where rules tile it, the
      // copy is inlined where it is read (gpuTilesStageThePaddedInput...).
      Schedule s = AutoScheduler.untuned(t, List.of(y));
      assertThat(s.stages())
          .as("%s", t)
          .filteredOn(st -> st.name().equals("X.pad"))
          .allMatch(st -> st.attachType() == AttachType.INLINE);
    }
    check(y);
  }

  @Test
  void gpuTilesStageThePaddedInputAndTheirProductReadsItWithoutASelect() {
    // A dilated 3x3 convolution with its padding inside the sum: the rules' CUDA pick stages the
    // input in shared memory, and the padding moves into that copy.
    Tensor x = placeholder("X", FLOAT32, 1, 32, 28, 28);
    Tensor w = placeholder("W", FLOAT32, 32, 32, 3, 3);
    IterVar c = reduceAxis(32, "c");
    IterVar ky = reduceAxis(3, "ky");
    IterVar kx = reduceAxis(3, "kx");
    Tensor y =
        compute(
            "Dilated",
            shape(1, 32, 28, 28),
            (n, o, i, j) -> {
              Expr iy = i.add(ky.var().mul(2)).sub(2);
              Expr ix = j.add(kx.var().mul(2)).sub(2);
              Expr in =
                  select(
                      iy.ge(0).and(iy.lt(28)).and(ix.ge(0)).and(ix.lt(28)),
                      x.at(n, c.var(), iy, ix),
                      0.0);
              return sum(in.mul(w.at(o, c.var(), ky.var(), kx.var())), c, ky, kx);
            });
    Schedule s = AutoScheduler.untuned(Target.CUDA, List.of(y));
    assertThat(names(s)).contains("X.pad.shared");
    Stage local =
        s.stages().stream().filter(st -> st.name().equals("Dilated.local")).findFirst().get();
    assertThat(ComputeDag.selects(local.body())).isFalse();
    GpuCheck.check(s, Map.of());
    GpuCheck.check(AutoScheduler.untuned(Target.OPENCL, List.of(y)), Map.of());
  }

  /**
   * Pooling of stride 2 with no padding (a user's 3-d max pool, a 1-d max pool of 3 taps): on CPUs
   * the input is copied (padded by nothing) for the row form to store in phases; GPUs read it in
   * place. Both equal the oracle.
   */
  @Test
  void aStridedWindowWithoutPaddingIsCopiedOnCpus() {
    Tensor v = placeholder("V", FLOAT32, 1, 3, 6, 14, 18);
    IterVar kd = reduceAxis(2, "kd");
    IterVar ky = reduceAxis(2, "ky");
    IterVar kx = reduceAxis(2, "kx");
    Tensor pool3d =
        dev.kernelgen.te.TE.computeN(
            "MaxPool3d",
            shape(1, 3, 3, 7, 9),
            ix ->
                dev.kernelgen.te.TE.max(
                    v.at(
                        ix.get(0),
                        ix.get(1),
                        ix.get(2).mul(2).add(kd.var()),
                        ix.get(3).mul(2).add(ky.var()),
                        ix.get(4).mul(2).add(kx.var())),
                    kd,
                    ky,
                    kx));
    Tensor s = placeholder("S", FLOAT32, 4, 5, 201);
    IterVar t = reduceAxis(3, "t");
    Tensor pool1d =
        compute(
            "MaxPool1",
            shape(4, 5, 100),
            (b, c, o) -> dev.kernelgen.te.TE.max(s.at(b, c, o.mul(2).add(t.var())), t));
    for (Tensor y : List.of(pool3d, pool1d)) {
      String copy = y == pool3d ? "V.pad" : "S.pad";
      assertThat(names(AutoScheduler.untuned(Target.C, List.of(y)))).as(y.name()).contains(copy);
      assertThat(names(AutoScheduler.untuned(Target.CUDA, List.of(y))))
          .as(y.name())
          .doesNotContain(copy);
      check(y);
    }
    // A wider stride (a max over windows of 7, stride 4) keeps the tiles: in more phases the row
    // form lost.
    IterVar u = reduceAxis(7, "u");
    Tensor wide =
        compute(
            "WinMax",
            shape(4, 49),
            (b, o) -> dev.kernelgen.te.TE.max(s.at(b, 0, o.mul(4).add(u.var())), u));
    assertThat(names(AutoScheduler.untuned(Target.C, List.of(wide)))).doesNotContain("S.pad");
    check(wide);
  }

  @Test
  void selectsOfDifferentValuesLeaveTheInput() {
    Tensor y = depthwiseStridedDilated(1.0);
    assertThat(names(AutoScheduler.untuned(Target.C, List.of(y)))).doesNotContain("X.pad");
    check(y);
  }

  @Test
  void aMaskIsNotPadding() {
    // A prefix sum's k <= j tests the read against the output, not against the input's bounds.
    Tensor x = placeholder("X", FLOAT32, 6, 23);
    IterVar k = reduceAxis(23, "k");
    Tensor y =
        compute(
            "Prefix", shape(6, 23), (i, j) -> sum(select(k.var().le(j), x.at(i, k.var()), 0.0), k));
    assertThat(names(AutoScheduler.untuned(Target.C, List.of(y)))).doesNotContain("X.pad");
    check(y);
  }

  @Test
  void aStageComputedBeforeTheWindowIsPaddedToo() {
    // relu(x * scale[c] + shift[c]) as a stage, read through a 3x3 window padded inside the sum.
    Tensor x = placeholder("X", FLOAT32, 1, 4, 13, 11);
    Tensor scale = placeholder("Scale", FLOAT32, 4);
    Tensor act =
        compute(
            "Act",
            shape(1, 4, 13, 11),
            (n, c, i, j) -> maximum(x.at(n, c, i, j).mul(scale.at(c)).sub(0.25), 0.0));
    Tensor y = window3x3(act, 0.0);
    for (Target t : List.of(Target.C, Target.JAVA)) {
      assertThat(names(AutoScheduler.untuned(t, List.of(y)))).as("%s", t).contains("Act.pad");
    }
    check(y);
  }

  @Test
  void anOutsideValueThatVariesIsNotPadding() {
    // Outside the plane, the output's own element of the input: no one value to pad with.
    Tensor x = placeholder("X", FLOAT32, 1, 4, 13, 11);
    Tensor y = window3x3(x, null);
    assertThat(names(AutoScheduler.untuned(Target.C, List.of(y)))).doesNotContain("X.pad");
    check(y);
  }

  /**
   * A 3x3 window of stride 1 over {@code x}, padded inside its sum with {@code outside}, or where
   * null with {@code x}'s element at the output's own position.
   */
  private static Tensor window3x3(Tensor x, Double outside) {
    int h = (int) ((dev.kernelgen.te.IntImm) x.shape().get(2)).value();
    int w = (int) ((dev.kernelgen.te.IntImm) x.shape().get(3)).value();
    Tensor f = placeholder("F", FLOAT32, 4, 3, 3);
    IterVar ky = reduceAxis(3, "ky");
    IterVar kx = reduceAxis(3, "kx");
    return compute(
        "Window",
        shape(1, 4, h, w),
        (n, c, i, j) -> {
          Expr iy = i.add(ky.var()).sub(1);
          Expr ix = j.add(kx.var()).sub(1);
          Expr in =
              select(
                  iy.ge(0).and(iy.lt(h)).and(ix.ge(0)).and(ix.lt(w)),
                  x.at(n, c, iy, ix),
                  outside == null ? (Object) x.at(n, c, i, j) : outside);
          return sum(in.mul(f.at(c, ky.var(), kx.var())), ky, kx);
        });
  }

  private static List<String> names(Schedule s) {
    return s.stages().stream().map(Stage::name).toList();
  }

  private static void check(Tensor y) {
    for (Target t : List.of(Target.C, Target.JAVA)) {
      Schedule s = AutoScheduler.untuned(t, List.of(y));
      Check.check(
          s,
          OpSchedules.args(s),
          Map.of(),
          EnumSet.of(t == Target.C ? Check.Backend.C : Check.Backend.JAVA, Check.Backend.IR),
          1e-4,
          1e-4);
    }
    GpuCheck.check(AutoScheduler.untuned(Target.CUDA, List.of(y)), Map.of());
  }
}
