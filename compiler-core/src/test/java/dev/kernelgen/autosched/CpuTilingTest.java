package dev.kernelgen.autosched;

import static org.assertj.core.api.Assertions.assertThat;

import dev.kernelgen.annotations.Target;
import dev.kernelgen.codegen.CCodegen;
import dev.kernelgen.lower.Lower;
import dev.kernelgen.schedule.Schedule;
import dev.kernelgen.schedule.Stage;
import dev.kernelgen.spec.Knobs;
import dev.kernelgen.te.Tensor;
import dev.kernelgen.testing.Check;
import dev.kernelgen.tir.ForKind;
import dev.kernelgen.topi.OpSchedules;
import java.util.EnumSet;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;

/** The CPU register tiles ({@link CpuTiling}, {@link CpuPackedTiling}) where a tile is ragged. */
class CpuTilingTest {
  private static int statements(Tensor out, String config) {
    Map<String, Integer> v = new TreeMap<>();
    for (String kv : config.split(",")) {
      v.put(kv.split("=")[0], Integer.parseInt(kv.split("=")[1]));
    }
    Schedule s = AutoScheduler.generate(Target.C, List.of(out), Knobs.configured(v));
    return UntunedPick.statements(Lower.lower(s, "k", OpSchedules.args(s), Target.C, null));
  }

  @Test
  void manyRowsOverARaggedVectorTileStayLoops() {
    // Points of the space drawn by GeneratedScheduleTest and CpuPackedTilingTest: 32-64 rows over a
    // vector tile that does not divide its extent (more than MAX_UNROLLED_RAGGED). With the rows
    // unrolled these lowered to
    // 1010-1383 statements (gcc took 10-22 s per kernel at -O3); as loops, 66-131.
    Tensor conv = Workloads.all().get(2).outputs().get(0);
    Tensor depthwise = Workloads.all().get(3).outputs().get(0);
    Tensor packedConv = CpuPackedTilingTest.convBnSigmoid();
    assertThat(
            statements(
                conv,
                "Conv2d.layout=0,Conv2d.tile0=2,Conv2d.tile1=6,Conv2d.tile2=4,Conv2d.tile3=4,sketch=0"))
        .isLessThanOrEqualTo(UntunedPick.MAX_STATEMENTS / 2);
    assertThat(
            statements(
                depthwise,
                "DepthwiseConv2d.layout=0,DepthwiseConv2d.tile0=2,DepthwiseConv2d.tile1=4,"
                    + "DepthwiseConv2d.tile2=4,DepthwiseConv2d.tile3=4,sketch=0"))
        .isLessThanOrEqualTo(UntunedPick.MAX_STATEMENTS / 2);
    assertThat(
            statements(
                packedConv,
                "Conv2d.layout=5,Conv2d.tile0=2,Conv2d.tile1=8,Conv2d.tile2=4,Conv2d.tile3=2,sketch=0"))
        .isLessThanOrEqualTo(UntunedPick.MAX_STATEMENTS / 2);
  }

  @Test
  void aStrideTwoWindowIsAccumulatedInASerialLoop() {
    // Max pool 3x3 / 2 reads Image[..., 2 * x + dx]: its accumulation is not vectorized (the copy
    // of the tile to the output, contiguous, still is). The depthwise convolution's window steps by
    // one.
    Tensor image =
        dev.kernelgen.te.TE.placeholder("Image", dev.kernelgen.te.DType.FLOAT32, 1, 8, 30, 30);
    Tensor pool =
        dev.kernelgen.topi.Pooling.maxPool2d(
            image, 3, 3, 2, 2, dev.kernelgen.topi.Padding.same(30, 30, 3, 3, 2, 2, 1));
    Schedule s = AutoScheduler.untuned(Target.C, List.of(pool));
    Stage local = s.stage("MaxPool2d.local");
    assertThat(ComputeDag.nonUnitStrideAlong(s, local, local.axis(3).var())).isTrue();
    assertThat(local.attr(local.leafIterVars().get(local.leafIterVars().size() - 1)).kind())
        .isNotEqualTo(ForKind.VECTORIZED);
    Tensor depthwise = Workloads.all().get(3).outputs().get(0);
    Schedule d = AutoScheduler.untuned(Target.C, List.of(depthwise));
    Stage dlocal = d.stage("DepthwiseConv2d.local");
    assertThat(ComputeDag.nonUnitStrideAlong(d, dlocal, dlocal.axis(3).var())).isFalse();
  }

  /** The generated C of an untuned pick. */
  private static String cSource(Schedule s) {
    return CCodegen.generate(
        List.of(Lower.lower(s, "k", OpSchedules.args(s), Target.C, null)), "m");
  }

  /** The pick equal to the oracle on random inputs, on the IR interpreter, C and Java. */
  private static void matchesOracle(Schedule s, double tolerance) {
    Check.check(
        s,
        OpSchedules.args(s),
        Map.of(),
        EnumSet.of(Check.Backend.IR, Check.Backend.C, Check.Backend.JAVA),
        tolerance,
        tolerance);
  }

  /** The accumulator tile of the C kernel's stage {@code name}.local, in elements. */
  private static int localTile(Schedule s, String name) {
    String c = cSource(s);
    java.util.regex.Matcher m =
        java.util.regex.Pattern.compile("float " + name + "_local\\[(\\d+)\\]").matcher(c);
    assertThat(m.find()).as("a local accumulator of %s in%n%s", name, c).isTrue();
    return Integer.parseInt(m.group(1));
  }

  @Test
  void aReductionDownTheColumnsStreamsRowsOfAKilobyteOrMore() {
    // A sum down the columns reads each element once, a row of memory per step: a tile of 32
    // columns (128 bytes a row, the register tile's pick before) took 90 us for the maxima of a
    // [1024, 1024] matrix on a 2-core Zen 4, 45 us with 64 and 29 us with 512.
    Tensor x = dev.kernelgen.te.TE.placeholder("X", dev.kernelgen.te.DType.FLOAT32, 1024, 1024);
    Schedule s =
        AutoScheduler.untuned(Target.C, List.of(dev.kernelgen.topi.Reduction.sum(x, false, 0)));
    Stage local = s.stage("Sum.local");
    assertThat(CpuTiling.streams(s, local)).isTrue();
    assertThat(localTile(s, "Sum")).isGreaterThanOrEqualTo(64);
    // A softmax down the columns and over NCHW's channels: the same, equal to the oracle on ragged
    // shapes (a column tile that divides neither extent, a row count that is no power of two).
    for (Tensor out :
        List.of(
            dev.kernelgen.topi.Reduction.softmax(
                dev.kernelgen.te.TE.placeholder("X", dev.kernelgen.te.DType.FLOAT32, 37, 300), 0),
            dev.kernelgen.topi.Reduction.softmax(
                dev.kernelgen.te.TE.placeholder("X", dev.kernelgen.te.DType.FLOAT32, 2, 19, 7, 45),
                1),
            dev.kernelgen.topi.Reduction.sum(
                dev.kernelgen.te.TE.placeholder("X", dev.kernelgen.te.DType.FLOAT32, 29, 3, 1000),
                false,
                0))) {
      matchesOracle(AutoScheduler.untuned(Target.C, List.of(out)), 1e-5);
    }
    // A matmul reuses each element of both operands: no stream, its register tile as before.
    Tensor a = dev.kernelgen.te.TE.placeholder("A", dev.kernelgen.te.DType.FLOAT32, 64, 64);
    Tensor b = dev.kernelgen.te.TE.placeholder("B", dev.kernelgen.te.DType.FLOAT32, 64, 64);
    Schedule m = AutoScheduler.untuned(Target.C, List.of(dev.kernelgen.topi.Linalg.matmul(a, b)));
    Stage mlocal = m.stage("MatMul.local");
    assertThat(CpuTiling.streams(m, mlocal)).isFalse();
  }

  @Test
  void rowsTooShortForLanesAreAScalarLoopPerOutputNotAGather() {
    // The maxima of rows of three: a register tile along the rows reads them with a stride of 3
    // (a gather per vector: 45 us at [262144, 3] on a 2-core Zen 4, its naive loop 47 us); one
    // output at a time, the compiler vectorizes across the outputs itself (26 us).
    Tensor x = dev.kernelgen.te.TE.placeholder("X", dev.kernelgen.te.DType.FLOAT32, 4096, 3);
    Schedule s =
        AutoScheduler.untuned(Target.C, List.of(dev.kernelgen.topi.Reduction.max(x, false, 1)));
    assertThat(cSource(s)).contains("float Max_local[1]").doesNotContain("omp simd");
    // Equal to the oracle, and on a ragged row count.
    Tensor ragged = dev.kernelgen.te.TE.placeholder("X", dev.kernelgen.te.DType.FLOAT32, 1001, 3);
    for (Schedule t :
        List.of(
            s,
            AutoScheduler.untuned(
                Target.C, List.of(dev.kernelgen.topi.Reduction.max(ragged, false, 1))))) {
      matchesOracle(t, 1e-6);
    }
  }

  @Test
  void raggedMeansAConstantExtentTheTileDoesNotDivide() {
    assertThat(CpuTiling.variesPerTile(9, 4)).isTrue();
    assertThat(CpuTiling.variesPerTile(64, 16)).isFalse();
    // Symbolic extents keep their rows unrolled: their guards fold in the unrolled copies.
    assertThat(CpuTiling.variesPerTile(-1, 16)).isFalse();
    assertThat(CpuTiling.maxUnrolledRows(14, 8, false)).isEqualTo(CpuTiling.MAX_UNROLLED_RAGGED);
    assertThat(CpuTiling.maxUnrolledRows(64, 16, false)).isEqualTo(CpuTiling.MAX_UNROLLED);
  }
}
