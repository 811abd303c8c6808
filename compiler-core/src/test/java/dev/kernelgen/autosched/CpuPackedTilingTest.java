package dev.kernelgen.autosched;

import static dev.kernelgen.te.TE.FLOAT32;
import static org.assertj.core.api.Assertions.assertThat;

import dev.kernelgen.annotations.Target;
import dev.kernelgen.lower.Lower;
import dev.kernelgen.schedule.Schedule;
import dev.kernelgen.schedule.Stage;
import dev.kernelgen.spec.Knobs;
import dev.kernelgen.te.IterVar;
import dev.kernelgen.te.Tensor;
import dev.kernelgen.te.Var;
import dev.kernelgen.testing.Check;
import dev.kernelgen.tir.PrimFunc;
import dev.kernelgen.topi.Conv;
import dev.kernelgen.topi.Elementwise;
import dev.kernelgen.topi.Linalg;
import dev.kernelgen.topi.Nn;
import dev.kernelgen.topi.OpSchedules;
import dev.kernelgen.topi.Padding;
import dev.kernelgen.tune.ConfigSpace;
import dev.kernelgen.tune.Configuration;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The packed CPU layout ({@link CpuPackedTiling}) on ragged shapes large enough for it (every
 * vectorized extent at least 16, none a multiple of the tiles): which axes it offers, that the
 * untuned pick of a matmul, a dense layer and a convolution with its epilogue takes it, and every
 * candidate axis at random tiles against the oracle in C.
 */
class CpuPackedTilingTest {
  private static final Tensor X = ph("X", 21, 37);
  private static final Tensor W = ph("W", 35, 37);
  private static final Tensor BIAS = ph("Bias", 35);
  private static final Tensor B = ph("B", 37, 50);
  private static final Tensor INPUT = ph("Input", 2, 5, 17, 19);
  private static final Tensor FILTER = ph("Filter", 20, 5, 3, 3);

  private static Tensor ph(String name, Object... shape) {
    return dev.kernelgen.te.TE.placeholder(name, FLOAT32, shape);
  }

  static Tensor dense() {
    return Elementwise.relu(Elementwise.add(Linalg.dense(X, W), BIAS));
  }

  static Tensor matmul() {
    return Linalg.matmul(X, B);
  }

  /** A 3x3 convolution with padding, then batch norm and sigmoid (intrinsics in the epilogue). */
  static Tensor convBnSigmoid() {
    Tensor conv = Conv.conv2dNchw(INPUT, FILTER, 1, 1, new Padding(1, 1, 1, 1), 1);
    Tensor bn =
        Elementwise.batchNormInference(
            conv, ph("Gamma", 20), ph("Beta", 20), ph("Mean", 20), ph("Var", 20), 1e-5, 1);
    return Elementwise.sigmoid(bn);
  }

  static Tensor depthwise() {
    return Nn.depthwiseConv2dNchw(
        ph("DwIn", 1, 16, 17, 19), ph("DwFilter", 16, 1, 3, 3), 1, 1, new Padding(1, 1, 1, 1), 1);
  }

  static Tensor batchMatmul() {
    return Linalg.batchMatmul(ph("BA", 2, 17, 23), ph("BB", 2, 23, 18));
  }

  /** The layout knob's packed values of the reduction of {@code out}, as axis positions. */
  private static List<Integer> packedAxes(Tensor out) {
    ConfigSpace space = AutoScheduler.space(Target.C, List.of(out));
    List<Integer> axes = new ArrayList<>();
    for (var e : space.knobs().entrySet()) {
      // (Not the Winograd sketch's: its products are another DAG's stages.)
      if (e.getKey().endsWith(".layout") && !e.getKey().startsWith("winograd.")) {
        for (int v : e.getValue()) {
          if (v >= CpuPackedTiling.BASE && v != CpuRowWindow.LAYOUT) {
            axes.add(v - CpuPackedTiling.BASE);
          }
        }
      }
    }
    return axes.stream().sorted().toList();
  }

  @Test
  void offersTheAxesAlongWhichAnOperandIsBroadcastAndTheOthersContiguousOrPackable() {
    // dense out[i, j]: X broadcast along j with W[j, k] packed; W broadcast along i with X packed.
    assertThat(packedAxes(dense())).containsExactly(0, 1);
    assertThat(packedAxes(matmul())).containsExactly(0, 1);
    // conv [n, f, y, x]: along f (the filter packed, the padded input broadcast) and along x (the
    // padded input contiguous, the filter broadcast); n is 2, and y strides the input.
    assertThat(packedAxes(convBnSigmoid())).containsExactly(1, 3);
    // depthwise: the input depends on its channel, so only along x.
    assertThat(packedAxes(depthwise())).containsExactly(3);
    // batch matmul: B[b, k, j] is contiguous along j; along i, A[b, i, k] is a batch of weights
    // (b read by every operand), packed.
    assertThat(packedAxes(batchMatmul())).containsExactly(1, 2);
    // Java keeps the other layouts. A dense layer over a symbolic reduction is packed along its 21
    // output features (W's panel then a heap temporary), not along its 9 rows, less than a vector.
    assertThat(AutoScheduler.space(Target.JAVA, List.of(dense())).knobs().get("Dense.layout"))
        .containsExactly(0, 1);
    assertThat(packedAxes(Workloads.symbolicDense().outputs().get(0))).containsExactly(1);
  }

  @Test
  void fewRowsRunTheTilesOfThePackedAxisInParallel() {
    // 7 rows of one image beside 128 output channels: the tiles of the channels are the parallel
    // tasks, each packing its own panel of the filter (no parallel loop of its own), all reading
    // one padded input.
    Tensor conv =
        Conv.conv2dNchw(
            ph("SmallIn", 1, 32, 7, 7),
            ph("SmallF", 128, 32, 3, 3),
            1,
            1,
            new Padding(1, 1, 1, 1),
            1);
    Schedule s = AutoScheduler.untuned(Target.C, List.of(conv));
    Stage out = s.stage(s.outputs().get(0));
    IterVar task = out.leafIterVars().get(0);
    assertThat(out.attr(task).kind()).isEqualTo(dev.kernelgen.tir.ForKind.PARALLEL);
    assertThat(task.name()).startsWith("j");
    Stage panel =
        s.stages().stream()
            .filter(st -> st.name().startsWith("SmallF.local"))
            .findFirst()
            .orElseThrow();
    assertThat(panel.leafIterVars())
        .noneMatch(iv -> panel.attr(iv).kind() == dev.kernelgen.tir.ForKind.PARALLEL);
    // Every task reads the whole padded input: it is computed once, before the tasks, in parallel.
    Stage padded =
        s.stages().stream()
            .filter(st -> st.name().startsWith("PaddedInput"))
            .findFirst()
            .orElseThrow();
    assertThat(padded.attachType()).isEqualTo(dev.kernelgen.schedule.AttachType.ROOT);
    assertThat(padded.leafIterVars())
        .anyMatch(iv -> padded.attr(iv).kind() == dev.kernelgen.tir.ForKind.PARALLEL);
    Check.check(s, OpSchedules.args(s), Map.of(), EnumSet.of(Check.Backend.C), 1e-4, 1e-4);
    // A vector times a matrix (one row): the same, and equal to the oracle.
    Tensor vm = Linalg.matmul(ph("Row", 1, 96), ph("Mat", 96, 80));
    Schedule m = AutoScheduler.untuned(Target.C, List.of(vm));
    Stage mo = m.stage(m.outputs().get(0));
    assertThat(mo.attr(mo.leafIterVars().get(0)).kind())
        .isEqualTo(dev.kernelgen.tir.ForKind.PARALLEL);
    Check.check(m, OpSchedules.args(m), Map.of(), EnumSet.of(Check.Backend.C), 1e-4, 1e-4);
    // Many rows keep them in parallel: a 56x56 plane.
    assertThat(
            CpuPackedTiling.parallelOverV(
                stageOf(
                    Conv.conv2dNchw(
                        ph("BigIn", 1, 32, 56, 56),
                        ph("BigF", 128, 32, 3, 3),
                        1,
                        1,
                        new Padding(1, 1, 1, 1),
                        1)),
                1))
        .isFalse();
  }

  @Test
  void aPanelStreamedPerTileOfRowsIsSizedByTheL2OfTheUnitsCores() {
    // [1,512,7,7] x 512: a panel of 32 output channels is 576 KiB, within the 1 MiB L2 of an
    // AVX-512 core (it ran 1.2x faster than 16 channels on a 2-core Zen 5), past twice the 256 KiB
    // assumed of AVX2's, whose pick keeps 16 channels (288 KiB).
    Tensor conv =
        Conv.conv2dNchw(
            ph("DeepIn", 1, 512, 7, 7),
            ph("DeepF", 512, 512, 3, 3),
            1,
            1,
            new Padding(1, 1, 1, 1),
            1);
    Map<VectorUnit, Integer> channels = new java.util.HashMap<>();
    for (VectorUnit unit : List.of(VectorUnit.AVX512, VectorUnit.AVX2)) {
      Configuration c =
          AutoScheduler.untunedConfig(
              Target.C, unit, List.of(conv), SketchRules.defaults(), new AnalyticPredictor());
      channels.put(unit, c.values().get("Conv2d.tile1"));
    }
    assertThat(channels.get(VectorUnit.AVX512)).isEqualTo(32);
    assertThat(channels.get(VectorUnit.AVX2)).isEqualTo(16);
    assertThat(VectorUnit.AVX512.l2Bytes()).isEqualTo(1 << 20);
  }

  private static Stage stageOf(Tensor t) {
    return Schedule.create(t).stage(t);
  }

  @Test
  void theUntunedPicksOfMatmulDenseAndConvolutionVectorizeAlongTheOutputAxisOfTheWeight() {
    // Along j for matmul and dense, along output channels for the convolution.
    Tensor a = ph("A", 256, 512);
    assertThat(pickedLayout(Linalg.matmul(a, ph("B", 512, 384))))
        .isEqualTo(CpuPackedTiling.BASE + 1);
    Tensor dense =
        Elementwise.relu(Elementwise.add(Linalg.dense(a, ph("W", 384, 512)), ph("C", 384)));
    assertThat(pickedLayout(dense)).isEqualTo(CpuPackedTiling.BASE + 1);
    Tensor big =
        Elementwise.sigmoid(
            Conv.conv2dNchw(
                ph("In", 1, 64, 56, 56), ph("F", 64, 64, 3, 3), 1, 1, new Padding(1, 1, 1, 1), 1));
    assertThat(pickedLayout(big)).isEqualTo(CpuPackedTiling.BASE + 1);
    // The direct sketch's pick lowers: a packed panel of the filter, the padded input a stage of
    // its own. (The untuned pick at this shape is the Winograd sketch, WinogradSketchTest.)
    Schedule s =
        AutoScheduler.schedule(
            Target.C,
            List.of(big),
            Knobs.configured(Map.of(AutoScheduler.SKETCH, AutoScheduler.RULES)));
    List<String> stages = s.stages().stream().map(Stage::name).toList();
    assertThat(stages).anyMatch(n -> n.startsWith("F.local"));
    PrimFunc f = Lower.lower(s, "big", OpSchedules.args(s), Target.C, null);
    assertThat(f).isNotNull();
  }

  @Test
  void thePanelsArePackedByEveryThread() {
    // The weight panel is packed outside the parallel loop over output tiles: in a parallel loop
    // of its own (one thread packing while the others waited cost 1-5% of a 2048 matmul).
    Tensor out = Linalg.matmul(ph("A", 256, 512), ph("B", 512, 384));
    Schedule s = AutoScheduler.untuned(Target.C, List.of(out));
    Stage panel =
        s.stages().stream().filter(st -> st.name().startsWith("B.local")).findFirst().orElseThrow();
    assertThat(panel.attr(panel.leafIterVars().get(0)).kind())
        .isEqualTo(dev.kernelgen.tir.ForKind.PARALLEL);
    String c =
        dev.kernelgen.codegen.CCodegen.generate(
            List.of(Lower.lower(s, "mm", OpSchedules.args(s), Target.C, null)), "m");
    assertThat(c.split("#pragma omp parallel for", -1)).hasSize(3);
  }

  @Test
  void withNothingPackedTheTilesOfTheVectorRunInsideOneParallelLoop() {
    // A depthwise convolution packs no weight along x: its padded rows are computed once per task,
    // in the one parallel loop, outermost (it was inside a serial loop over the tiles of x: a
    // parallel region per tile, 104 us against the naive loops' 72 us at [1,64,56,56]).
    // (The untuned pick is the row form, CpuRowWindow; the packed layout is configured here.)
    Tensor in = ph("In", 1, 64, 56, 56);
    Tensor out = Nn.depthwiseConv2dNchw(in, ph("F", 64, 1, 3, 3), 1, 1, new Padding(1, 1, 1, 1), 1);
    Schedule s = packedAlongX(out);
    String c =
        dev.kernelgen.codegen.CCodegen.generate(
            List.of(Lower.lower(s, "dw", OpSchedules.args(s), Target.C, null)), "m");
    assertThat(c.split("#pragma omp parallel for", -1)).hasSize(2);
    assertThat(c.indexOf("#pragma omp parallel for")).isLessThan(c.indexOf("for (int32_t"));
  }

  /**
   * A padded plane larger than L1 ({@link ProducerRegion#BAND_BYTES}: 99 x 103 floats here) is
   * computed per tile of rows, where the rows' tile loop starts, not once per task; a smaller one
   * once per task. Ragged rows and columns against the oracle.
   */
  @Test
  void aPaddedPlaneLargerThanL1IsComputedPerTileOfRows() {
    Tensor in = ph("In", 1, 3, 97, 101);
    Tensor out = Nn.depthwiseConv2dNchw(in, ph("F", 3, 1, 3, 3), 1, 1, new Padding(1, 1, 1, 1), 1);
    Schedule s = packedAlongX(out);
    Stage padded =
        s.stages().stream().filter(t -> t.name().equals("PaddedInput")).findFirst().orElseThrow();
    assertThat(padded.attachIterVar().name()).isEqualTo("k.outer");
    Check.check(s, OpSchedules.args(s), Map.of(), EnumSet.of(Check.Backend.C), 1e-4, 1e-4);
    Tensor small = ph("In", 1, 3, 61, 67);
    Tensor smallOut =
        Nn.depthwiseConv2dNchw(small, ph("F", 3, 1, 3, 3), 1, 1, new Padding(1, 1, 1, 1), 1);
    Schedule whole = packedAlongX(smallOut);
    Stage wholePadded =
        whole.stages().stream()
            .filter(t -> t.name().equals("PaddedInput"))
            .findFirst()
            .orElseThrow();
    assertThat(wholePadded.attachIterVar().name()).contains("fused");
  }

  /**
   * Bands are of the producer's rows only: a packed convolution tiled by one column at a time (the
   * 3x3 over [32,64,56,56]x64's untuned tiles) computes its padded rows per task, not per column
   * (47-57 ms so against 37-40 ms, 2-core Zen 4).
   */
  @Test
  void aProducerIsNotBandedAlongItsColumns() {
    Tensor out =
        Conv.conv2dNchw(
            ph("CIn", 32, 64, 56, 56), ph("CF", 64, 64, 3, 3), 1, 1, new Padding(1, 1, 1, 1), 1);
    Map<String, Integer> v = new TreeMap<>();
    v.put(AutoScheduler.SKETCH, AutoScheduler.RULES);
    v.put("Conv2d.layout", CpuPackedTiling.BASE + 1);
    v.put("Conv2d.tile0", 1);
    v.put("Conv2d.tile1", 64);
    v.put("Conv2d.tile2", 4);
    v.put("Conv2d.tile3", 1);
    Schedule s = AutoScheduler.generate(Target.C, List.of(out), Knobs.configured(v));
    Stage padded =
        s.stages().stream().filter(t -> t.name().equals("PaddedInput")).findFirst().orElseThrow();
    assertThat(padded.attachIterVar().name()).contains("fused");
  }

  /** The depthwise convolution {@code out} in the packed layout along its columns. */
  private static Schedule packedAlongX(Tensor out) {
    return AutoScheduler.schedule(
        Target.C,
        List.of(out),
        Knobs.configured(Map.of("DepthwiseConv2d.layout", CpuPackedTiling.BASE + 3)));
  }

  private static int pickedLayout(Tensor out) {
    Configuration c =
        AutoScheduler.untunedConfig(
            Target.C, List.of(out), SketchRules.defaults(), new AnalyticPredictor());
    return c.values().entrySet().stream()
        .filter(e -> e.getKey().endsWith(".layout"))
        .mapToInt(Map.Entry::getValue)
        .findFirst()
        .orElseThrow();
  }

  static Stream<Object[]> cases() {
    return Stream.of(
        new Object[] {"dense_bias_relu", dense()},
        new Object[] {"matmul", matmul()},
        new Object[] {"conv_bn_sigmoid", convBnSigmoid()},
        new Object[] {"depthwise", depthwise()},
        new Object[] {"batch_matmul", batchMatmul()});
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("cases")
  void everyPackedAxisAtRandomTilesMatchesTheOracle(String name, Tensor out) {
    assertThat(packedAxes(out)).isNotEmpty();
    checkRandomPackedTiles(name, out, Map.of(), 3, new Random(3));
  }

  /**
   * {@code perAxis} configurations drawn at random along each packed axis of {@code out}, each
   * against the oracle in C at {@code byName}'s dims.
   */
  private static void checkRandomPackedTiles(
      String name, Tensor out, Map<String, Long> byName, int perAxis, Random r) {
    ConfigSpace space = AutoScheduler.space(Target.C, List.of(out));
    String layoutKnob =
        space.knobs().keySet().stream()
            .filter(k -> k.endsWith(".layout") && !k.startsWith("winograd."))
            .findFirst()
            .orElseThrow();
    for (int axis : packedAxes(out)) {
      for (int k = 0; k < perAxis; k++) {
        Map<String, Integer> v = new TreeMap<>(space.random(r).values());
        v.put(AutoScheduler.SKETCH, AutoScheduler.RULES);
        v.put(layoutKnob, CpuPackedTiling.BASE + axis);
        Schedule s = AutoScheduler.generate(Target.C, List.of(out), Knobs.configured(v));
        try {
          Check.check(
              s, OpSchedules.args(s), dims(s, byName), EnumSet.of(Check.Backend.C), 1e-4, 1e-4);
        } catch (AssertionError e) {
          throw new AssertionError(name + " at " + v + ": " + e.getMessage(), e);
        }
      }
    }
  }

  /**
   * Symbolic extents (a batch, an image's height and width, the channels): the untuned pick is
   * still the packed layout (the conv + batch norm + swish sample's convolution at [1,64,57,55]
   * took 11.4 ms in the register tile against 1.7 ms packed with constant channels, 3.6 ms with
   * symbolic ones, 2-core Zen 4), and it matches the oracle at ragged shapes and a single pixel, at
   * its own tiles and (where {@code random}: each compile of the constant-channel convolution takes
   * seconds) at random ones.
   */
  @ParameterizedTest(name = "{0}")
  @MethodSource("symbolicCases")
  void symbolicDataAxesKeepThePackedLayoutAndMatchTheOracle(
      String name, Tensor out, List<Map<String, Long>> shapes, boolean random) {
    assertThat(pickedLayout(out)).isGreaterThanOrEqualTo(CpuPackedTiling.BASE);
    Schedule pick = AutoScheduler.untuned(Target.C, List.of(out));
    for (Map<String, Long> shape : shapes) {
      Check.check(
          pick, OpSchedules.args(pick), dims(pick, shape), EnumSet.of(Check.Backend.C), 1e-4, 1e-4);
    }
    if (random) {
      checkRandomPackedTiles(name, out, shapes.get(0), 1, new Random(5));
    }
  }

  /** The schedule's symbolic dims bound by name. */
  private static Map<Var, Long> dims(Schedule s, Map<String, Long> byName) {
    Map<Var, Long> out = new java.util.HashMap<>();
    for (Tensor t : OpSchedules.args(s)) {
      for (var e : t.shape()) {
        if (e instanceof Var v) {
          out.put(v, byName.get(v.name()));
        }
      }
    }
    return out;
  }

  static Stream<Object[]> symbolicCases() {
    Var n = dev.kernelgen.te.TE.var("n");
    Var h = dev.kernelgen.te.TE.var("h");
    Var w = dev.kernelgen.te.TE.var("w");
    Tensor in = ph("SymIn", n, 5, h, w);
    Tensor conv =
        Conv.conv2dNchw(in, ph("SymFilter", 20, 5, 3, 3), 1, 1, new Padding(1, 1, 1, 1), 1);
    Tensor bn =
        Elementwise.batchNormInference(
            conv, ph("SG", 20), ph("SB", 20), ph("SM", 20), ph("SV", 20), 1e-5, 1);
    Var batch = dev.kernelgen.te.TE.var("batch");
    Tensor dense =
        Elementwise.relu(
            Elementwise.add(
                Linalg.dense(ph("SymX", batch, 70), ph("SymW", 48, 70)), ph("SymBias", 48)));
    Var c = dev.kernelgen.te.TE.var("c");
    Var k = dev.kernelgen.te.TE.var("k");
    Tensor allSymbolic =
        Conv.conv2dNchw(
            ph("AllIn", n, c, h, w), ph("AllFilter", k, c, 3, 3), 1, 1, new Padding(1, 1, 1, 1), 1);
    return Stream.of(
        new Object[] {
          "conv over symbolic n, c, h, w, k",
          Elementwise.relu(allSymbolic),
          List.of(
              Map.of("n", 2L, "c", 7L, "h", 9L, "w", 6L, "k", 19L),
              Map.of("n", 1L, "c", 1L, "h", 1L, "w", 1L, "k", 1L)),
          true
        },
        new Object[] {
          "conv_bn_sigmoid over symbolic n, h, w",
          Elementwise.sigmoid(bn),
          List.of(Map.of("n", 2L, "h", 17L, "w", 19L)),
          false
        },
        new Object[] {
          "dense_bias_relu over a symbolic batch",
          dense,
          List.of(Map.of("batch", 21L), Map.of("batch", 1L)),
          true
        });
  }
}
