package dev.kernelgen.autosched;

import static dev.kernelgen.te.TE.FLOAT32;
import static org.assertj.core.api.Assertions.assertThat;

import dev.kernelgen.annotations.Target;
import dev.kernelgen.codegen.CCodegen;
import dev.kernelgen.lower.Lower;
import dev.kernelgen.schedule.Schedule;
import dev.kernelgen.schedule.Stage;
import dev.kernelgen.spec.Knobs;
import dev.kernelgen.spec.OperatorDef;
import dev.kernelgen.te.IterVar;
import dev.kernelgen.te.TE;
import dev.kernelgen.te.Tensor;
import dev.kernelgen.te.Var;
import dev.kernelgen.testing.Check;
import dev.kernelgen.topi.Conv;
import dev.kernelgen.topi.Linalg;
import dev.kernelgen.topi.Nn;
import dev.kernelgen.topi.OpSchedules;
import dev.kernelgen.topi.Padding;
import dev.kernelgen.topi.Pooling;
import dev.kernelgen.tune.ConfigSpace;
import dev.kernelgen.tune.Configuration;
import dev.kernelgen.tune.TuningTask;
import java.util.EnumSet;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The row form of sliding-window reductions on the CPU ({@link CpuRowWindow}): which reductions it
 * takes (a depthwise convolution, a pooling window, a user's stencil) and which it leaves to the
 * tiles (a convolution over channels, a matmul, an NHWC window, a global pool), that it is their
 * untuned pick, and every form it builds (bands, a plane at its pitch, a strided window, symbolic
 * sizes, a stencil without planes) against the oracle in C at ragged shapes.
 */
class CpuRowWindowTest {
  private static Tensor ph(String name, Object... shape) {
    return TE.placeholder(name, FLOAT32, shape);
  }

  private static Tensor depthwise(int h, int w, int k, int stride, int m, boolean same) {
    int p = same ? k / 2 : 0;
    return Nn.depthwiseConv2dNchw(
        ph("In", 1, 3, h, w), ph("F", 3, m, k, k), stride, stride, new Padding(p, p, p, p), 1);
  }

  private static Tensor fused(Tensor conv) {
    long c = ((dev.kernelgen.te.IntImm) conv.shape().get(1)).value();
    return Nn.relu(Nn.scaleShift(conv, ph("Scale", c), ph("Shift", c)));
  }

  /** A 3x3 box filter over a single-channel image, written as a user would: no planes. */
  static Tensor stencil2d(int h, int w) {
    Tensor img = ph("Img", h + 2, w + 2);
    IterVar di = TE.reduceAxis(3, "di");
    IterVar dj = TE.reduceAxis(3, "dj");
    return TE.compute(
        "Blur",
        TE.shape(h, w),
        (i, j) -> TE.sum(img.at(i.add(di.var()), j.add(dj.var())).mul(1.0 / 9), di, dj));
  }

  /** A depthwise convolution over one plane: its bands are the parallel tasks. */
  static Tensor onePlane(int h, int w) {
    return Nn.depthwiseConv2dNchw(
        ph("Plane", 1, 1, h, w), ph("F1", 1, 1, 3, 3), 1, 1, new Padding(1, 1, 1, 1), 1);
  }

  /**
   * A 3x3 window weighted per output pixel, the weight read first: the window's source is the
   * padded image, not the weight read at the output's own columns.
   */
  static Tensor weightedStencil(int h, int w) {
    Tensor img = ph("WImg", 1, 2, h, w);
    Tensor weight = ph("PixelWeight", 1, 2, h, w);
    Tensor padded = Nn.pad2d(img, new Padding(1, 1, 1, 1), "PaddedImg");
    IterVar di = TE.reduceAxis(3, "di");
    IterVar dj = TE.reduceAxis(3, "dj");
    return TE.compute(
        "Weighted",
        TE.shape(1, 2, h, w),
        (n, c, i, j) ->
            TE.sum(
                weight.at(n, c, i, j).mul(padded.at(n, c, i.add(di.var()), j.add(dj.var()))),
                di,
                dj));
  }

  /** A 7x7 depthwise filter padded by a select in the reduction, as a user writes it (ConvNeXt). */
  static Tensor selectPadded7x7(int c, int h, int w) {
    return selectPadded7x7(ph("X", 1, c, h, w), h, w);
  }

  /**
   * As {@link #selectPadded7x7(int, int, int)}, with the input's last row and column outside the
   * window too: a select that tests more than its read's bounds, which stays a select ({@link
   * PadWindowReads} pads only where the select is the read's bounds).
   */
  static Tensor selectCropped7x7(int c, int h, int w) {
    return selectPadded7x7(ph("X", 1, c, h, w), h - 1, w - 1);
  }

  /**
   * The window over {@code x}, whose elements at or beyond row {@code h} or column {@code w} are 0.
   */
  private static Tensor selectPadded7x7(Tensor x, int h, int w) {
    long c = ((dev.kernelgen.te.IntImm) x.shape().get(1)).value();
    long rows = ((dev.kernelgen.te.IntImm) x.shape().get(2)).value();
    long cols = ((dev.kernelgen.te.IntImm) x.shape().get(3)).value();
    Tensor f = ph("W7", c, 7, 7);
    IterVar ky = TE.reduceAxis(7, "ky");
    IterVar kx = TE.reduceAxis(7, "kx");
    return TE.compute(
        "Depthwise7",
        TE.shape(1, c, rows, cols),
        (n, ch, i, j) -> {
          var iy = i.add(ky.var()).sub(3);
          var ix = j.add(kx.var()).sub(3);
          var in =
              TE.select(
                  iy.ge(0).and(iy.lt(h)).and(ix.ge(0)).and(ix.lt(w)), x.at(n, ch, iy, ix), 0.0);
          return TE.sum(in.mul(f.at(ch, ky.var(), kx.var())), ky, kx);
        });
  }

  /**
   * Its loops partitioned at the borders, the row form of a select-padded 7x7 window is longer than
   * a register tile may be (590 statements) but compiles faster than the tile (1.3 s against 3.8)
   * and runs 3x faster ([1,96,56,56]: 0.6 ms against 1.6-1.9): it has a limit of its own. (Where
   * the select tests only its read's bounds, the tensor is padded instead and the row form is
   * short.)
   */
  @Test
  void aLongRowFormOfAUsersSelectPaddedWindowIsStillThePick() {
    Tensor out = selectCropped7x7(96, 56, 56);
    assertThat(pickedLayout(out)).isEqualTo(CpuRowWindow.LAYOUT);
    Schedule s = AutoScheduler.untuned(Target.C, List.of(out));
    int statements =
        UntunedPick.statements(Lower.lower(s, "k", OpSchedules.args(s), Target.C, null));
    assertThat(statements)
        .isGreaterThan(UntunedPick.MAX_STATEMENTS)
        .isLessThanOrEqualTo(UntunedPick.ROW_FORM_MAX_STATEMENTS);
    Tensor padded = selectPadded7x7(96, 56, 56);
    assertThat(pickedLayout(padded)).isEqualTo(CpuRowWindow.LAYOUT);
    Schedule p = AutoScheduler.untuned(Target.C, List.of(padded));
    assertThat(UntunedPick.statements(Lower.lower(p, "k", OpSchedules.args(p), Target.C, null)))
        .isLessThanOrEqualTo(UntunedPick.MAX_STATEMENTS);
  }

  private static Integer pickedLayout(Tensor out) {
    return pickedLayout(Target.C, out);
  }

  private static Integer pickedLayout(Target t, Tensor out) {
    var c =
        AutoScheduler.untunedConfig(
            t, List.of(out), SketchRules.defaults(), new AnalyticPredictor());
    return c.values().entrySet().stream()
        .filter(e -> e.getKey().endsWith(".layout"))
        .map(Map.Entry::getValue)
        .findFirst()
        .orElse(null);
  }

  private static boolean offered(Target t, Tensor out) {
    ConfigSpace space = AutoScheduler.space(t, List.of(out));
    return space.knobs().entrySet().stream()
        .anyMatch(
            e -> e.getKey().endsWith(".layout") && e.getValue().contains(CpuRowWindow.LAYOUT));
  }

  @Test
  void slidingWindowsTakeTheRowFormAndReductionsWithReuseKeepTheTiles() {
    for (Tensor out :
        List.of(
            depthwise(17, 19, 3, 1, 1, true),
            fused(depthwise(17, 19, 3, 1, 1, true)),
            depthwise(21, 21, 3, 1, 2, false),
            depthwise(19, 23, 3, 2, 1, true),
            depthwise(13, 29, 5, 1, 1, true),
            Pooling.maxPool2d(ph("Im", 1, 4, 23, 29), 3, 3, 2, 2, new Padding(1, 1, 1, 1)),
            stencil2d(19, 37))) {
      assertThat(pickedLayout(out)).as(out.name()).isEqualTo(CpuRowWindow.LAYOUT);
    }
    // Reused across output channels (the tiles' case), reduced over the channels, windowed across
    // rows only (NHWC), gathered, reduced over the whole plane, or on another target: not offered.
    Tensor in = ph("In", 1, 8, 17, 19);
    Padding same = new Padding(1, 1, 1, 1);
    assertThat(offered(Target.C, Conv.conv2dNchw(in, ph("F", 16, 8, 3, 3), 1, 1, same, 1)))
        .isFalse();
    assertThat(offered(Target.C, Linalg.matmul(ph("A", 33, 40), ph("B", 40, 35)))).isFalse();
    assertThat(
            offered(
                Target.C,
                Conv.depthwiseConv2dNhwc(
                    ph("Nhwc", 1, 17, 19, 32), ph("Hwcm", 3, 3, 32, 1), 1, 1, same, 1)))
        .isFalse();
    assertThat(offered(Target.C, Pooling.globalAvgPool(in))).isFalse();
    assertThat(offered(Target.CUDA, depthwise(17, 19, 3, 1, 1, true))).isFalse();
    assertThat(offered(Target.C, depthwise(17, 19, 3, 1, 1, true))).isTrue();
    assertThat(offered(Target.JAVA, depthwise(17, 19, 3, 1, 1, true))).isTrue();
  }

  static Stream<Object[]> cases() {
    return Stream.of(
        new Object[] {"dw 97x101 (bands)", fused(depthwise(97, 101, 3, 1, 1, true))},
        new Object[] {
          "dw 23x17 (bands; at band 0 a plane at its pitch)",
          fused(depthwise(23, 17, 3, 1, 1, true))
        },
        new Object[] {"dw 7x7 plain", depthwise(7, 7, 3, 1, 1, true)},
        new Object[] {"dw 13x29 k5", depthwise(13, 29, 5, 1, 1, true)},
        new Object[] {"dw 21x21 VALID m2", fused(depthwise(21, 21, 3, 1, 2, false))},
        new Object[] {"dw 19x23 stride 2", fused(depthwise(19, 23, 3, 2, 1, true))},
        new Object[] {"dw 70x70 stride 2 (bands)", depthwise(70, 70, 3, 2, 1, true)},
        new Object[] {
          "max pool 3x3/2",
          Pooling.maxPool2d(ph("Im", 1, 4, 23, 29), 3, 3, 2, 2, new Padding(1, 1, 1, 1))
        },
        new Object[] {"stencil 2d", stencil2d(19, 37)},
        new Object[] {"dw one plane 150x97 (bands as tasks)", onePlane(150, 97)},
        new Object[] {"weighted stencil 23x17", weightedStencil(23, 17)},
        new Object[] {"7x7 padded by a select, 19x23", selectPadded7x7(3, 19, 23)},
        new Object[] {"7x7 padded by a select that crops, 19x23", selectCropped7x7(3, 19, 23)});
  }

  /**
   * The untuned pick in C and in Java, and in C the same with the whole plane per task (band 0).
   */
  @ParameterizedTest(name = "{0}")
  @MethodSource("cases")
  void everyFormMatchesTheOracle(String name, Tensor out) {
    Schedule pick = AutoScheduler.untuned(Target.C, List.of(out));
    Check.check(pick, OpSchedules.args(pick), Map.of(), EnumSet.of(Check.Backend.C), 1e-4, 1e-4);
    Schedule java = AutoScheduler.untuned(Target.JAVA, List.of(out));
    assertThat(pickedLayout(Target.JAVA, out)).isEqualTo(CpuRowWindow.LAYOUT);
    Check.check(java, OpSchedules.args(java), Map.of(), EnumSet.of(Check.Backend.JAVA), 1e-4, 1e-4);
    var values =
        new TreeMap<>(
            AutoScheduler.untunedConfig(
                    Target.C, List.of(out), SketchRules.defaults(), new AnalyticPredictor())
                .values());
    values.replaceAll((k, v) -> k.endsWith(".band") && v > 0 ? 0 : v);
    Schedule whole = AutoScheduler.generate(Target.C, List.of(out), Knobs.configured(values));
    Check.check(whole, OpSchedules.args(whole), Map.of(), EnumSet.of(Check.Backend.C), 1e-4, 1e-4);
  }

  /**
   * A plane larger than L1 is padded per band of rows; a small ragged one is summed at its pitch,
   * the rows one vector loop over the plane ({@code lower.CoalescePitchedRows}: 20 rows of 23 plus
   * 21 columns); the window's rows pass over the row buffer one at a time.
   */
  /**
   * A long 1-d window (a 63-tap FIR filter) takes the row form with its taps as a loop inside the
   * vectorized row; the row buffer, past the stack's limit, is a heap temporary, and each output's
   * sum is held in a scalar across the taps (through memory, the C compiler kept the row loop
   * scalar: 12.3 against 1.0 ms on one Zen 4 core).
   */
  @Test
  void aLongWindowsSumStaysInAScalarAcrossItsTaps() {
    Tensor x = ph("Sig", 3, 20062);
    Tensor h = ph("Taps", 63);
    IterVar t = TE.reduceAxis(63, "t");
    Tensor out =
        TE.compute(
            "Fir",
            TE.shape(3, 20000),
            (b, i) -> TE.sum(x.at(b, i.add(t.var())).mul(h.at(t.var())), t));
    assertThat(pickedLayout(out)).isEqualTo(CpuRowWindow.LAYOUT);
    Schedule s = AutoScheduler.untuned(Target.C, List.of(out));
    String c = c(s);
    assertThat(c).contains("kg_workspace(").containsPattern("float acc = Fir_local\\[[^]]+\\];");
    Check.check(s, OpSchedules.args(s), Map.of(), EnumSet.of(Check.Backend.C), 1e-4, 1e-4);
  }

  @Test
  void bandsPitchAndTapRowsAreThoseOfTheHandWrittenSchedule() {
    Tensor big = fused(depthwise(97, 101, 3, 1, 1, true));
    Schedule s = AutoScheduler.untuned(Target.C, List.of(big));
    Stage padded = stage(s, "PaddedInput");
    // At the parallel task: the plane fused with the band's loop.
    assertThat(padded.attachIterVar().name()).contains("outer").contains("fused");
    String c = c(s);
    // Per pass of a filter row: three taps in one vectorized loop over the row.
    assertThat(c).contains("#pragma omp simd");
    // Without padding the window reads its input in place: nothing to band over 64 planes; over 3,
    // bands that give the cores tasks (16 wanted: 6 bands a plane).
    Tensor valid =
        Nn.depthwiseConv2dNchw(
            ph("Wide", 1, 64, 97, 101), ph("Fw", 64, 1, 3, 3), 1, 1, new Padding(0, 0, 0, 0), 1);
    assertThat(AutoScheduler.space(Target.C, List.of(valid)).knobs().get("DepthwiseConv2d.band"))
        .containsExactly(0);
    Tensor fewPlanes = fused(depthwise(97, 101, 3, 1, 1, false));
    assertThat(
            AutoScheduler.space(Target.C, List.of(fewPlanes)).knobs().get("DepthwiseConv2d.band"))
        .containsExactly(16, 0);
    Tensor small =
        fused(
            Nn.depthwiseConv2dNchw(
                ph("Small", 1, 32, 21, 21),
                ph("Fs", 32, 1, 3, 3),
                1,
                1,
                new Padding(1, 1, 1, 1),
                1));
    String sc = c(AutoScheduler.untuned(Target.C, List.of(small)));
    assertThat(sc).contains("< 481; ++");
  }

  /**
   * The row form reads no tile knob and the tiles no band, and the naive sketch none of the rules'
   * knobs: configurations that differ only there read the same knobs, so the tuner measures their
   * schedule once ({@code tune.KnownSchedules}); each reads what it builds with.
   */
  @Test
  void configurationsThatBuildTheSameScheduleReadTheSameKnobs() {
    Tensor in = ph("In", 1, 3, 97, 101);
    Tensor filter = ph("F", 3, 1, 3, 3);
    Tensor out = Nn.depthwiseConv2dNchw(in, filter, 1, 1, new Padding(1, 1, 1, 1), 1);
    TuningTask task =
        new TuningTask(
            "Test/rows",
            Target.C,
            OperatorDef.of(List.of(in, filter), out),
            k -> AutoScheduler.generate(Target.C, List.of(out), k),
            "rows");
    Map<String, Integer> rows = new TreeMap<>(task.space().defaults().values());
    rows.put("DepthwiseConv2d.layout", CpuRowWindow.LAYOUT);
    Map<String, Integer> otherTiles = new TreeMap<>(rows);
    otherTiles.put("DepthwiseConv2d.tile2", 1);
    otherTiles.put("DepthwiseConv2d.tile3", 16);
    assertThat(read(task, otherTiles)).isEqualTo(read(task, rows));
    assertThat(read(task, rows))
        .containsKey("DepthwiseConv2d.band")
        .doesNotContainKey("DepthwiseConv2d.tile3");
    Map<String, Integer> tiles = new TreeMap<>(rows);
    tiles.put("DepthwiseConv2d.layout", CpuTiling.REGISTER_TILE);
    Map<String, Integer> otherBand = new TreeMap<>(tiles);
    otherBand.put("DepthwiseConv2d.band", 0);
    assertThat(read(task, otherBand)).isEqualTo(read(task, tiles));
    assertThat(read(task, tiles))
        .containsKey("DepthwiseConv2d.tile3")
        .doesNotContainKey("DepthwiseConv2d.band");
    Map<String, Integer> naive = new TreeMap<>(tiles);
    naive.put(AutoScheduler.SKETCH, AutoScheduler.NAIVE);
    Map<String, Integer> otherNaive = new TreeMap<>(otherTiles);
    otherNaive.put(AutoScheduler.SKETCH, AutoScheduler.NAIVE);
    assertThat(read(task, naive))
        .isEqualTo(read(task, otherNaive))
        .isEqualTo(Map.of(AutoScheduler.SKETCH, AutoScheduler.NAIVE));
  }

  private static Map<String, Integer> read(TuningTask task, Map<String, Integer> values) {
    return task.readKnobs(Configuration.of(values)).values();
  }

  /**
   * One plane is cut into bands of rows, each a parallel task: [1,1,150,97] in bands of 10 rows (16
   * tasks wanted), the padding computed per band.
   */
  @Test
  void fewPlanesAreSharedAmongTheCoresInBands() {
    Tensor out = onePlane(150, 97);
    assertThat(pickedLayout(out)).isEqualTo(CpuRowWindow.LAYOUT);
    var pick =
        AutoScheduler.untunedConfig(
            Target.C, List.of(out), SketchRules.defaults(), new AnalyticPredictor());
    assertThat(pick.values()).containsEntry("DepthwiseConv2d.band", 10);
    Schedule s = AutoScheduler.untuned(Target.C, List.of(out));
    assertThat(stage(s, "PaddedInput").attachIterVar().name()).contains("fused");
    // One parallel loop over the 15 bands of the one plane.
    String c = c(s);
    assertThat(c.split("#pragma omp parallel for", -1)).hasSize(2);
    assertThat(c)
        .containsPattern("#pragma omp parallel for\\s+for \\(int32_t \\w+ = 0; \\w+ < 15;");
  }

  /**
   * Several output rows summed at once ({@code rows}): the default for a 5x5 window (25 taps) over
   * rows of whole vectors, in the space but not the default for 3x3, 7x7 or a ragged row, none
   * where the rows have no divisor or the window checks its own bounds; each form against the
   * oracle in C, the 5x5 in bands made whole (96 rows: bands of 16, not 20 ending in 16) and over
   * one plane, its multiply-adds ordered by the input vector they read.
   */
  @Test
  void severalRowsAtOnceWhereAWindowsTapsFitTheRegisters() {
    Tensor k5 = fused(depthwise(24, 32, 5, 1, 1, true));
    assertThat(rowsChoices(k5)).containsExactly(4, 1);
    assertThat(rowsChoices(fused(depthwise(18, 32, 5, 1, 1, true)))).containsExactly(2, 1);
    assertThat(rowsChoices(depthwise(24, 32, 3, 1, 1, true))).containsExactly(1, 4);
    assertThat(rowsChoices(depthwise(24, 32, 7, 1, 1, true))).containsExactly(1, 4);
    assertThat(rowsChoices(depthwise(24, 29, 5, 1, 1, true))).containsExactly(1, 4);
    assertThat(rowsChoices(depthwise(23, 32, 5, 1, 1, true))).containsExactly(1);
    assertThat(rowsChoices(depthwise(24, 32, 5, 2, 1, true))).containsExactly(1);
    assertThat(rowsChoices(selectCropped7x7(3, 24, 24))).containsExactly(1);
    assertThat(rowsChoices(selectPadded7x7(3, 24, 24))).containsExactly(1, 4);
    Tensor bands =
        fused(
            Nn.depthwiseConv2dNchw(
                ph("Tall", 1, 2, 96, 96), ph("F5", 2, 1, 5, 5), 1, 1, new Padding(2, 2, 2, 2), 1));
    List<Tensor> cases =
        List.of(k5, fused(depthwise(22, 36, 5, 1, 2, false)), bands, onePlane5x5(40, 48));
    for (Tensor out : cases) {
      Schedule pick = AutoScheduler.untuned(Target.C, List.of(out));
      Check.check(pick, OpSchedules.args(pick), Map.of(), EnumSet.of(Check.Backend.C), 1e-4, 1e-4);
    }
    String c = c(AutoScheduler.untuned(Target.C, List.of(bands)));
    // 16 tasks (2 planes in bands of 12 rows), each 3 passes of 4 rows: no ragged band or pass.
    assertThat(c).contains("i_j_fused_k_outer_fused < 16;").contains("k_inner_outer < 3;");
    assertThat(c).doesNotContain("kg_min_i32(96 -");
    // One pass of four rows' sums, its multiply-adds in the order of the input vector they read
    // (offsets 0..4, 100..104 twice, ...: each loaded vector's uses together).
    assertThat(c).contains("DepthwiseConv2d[l_9 + 288] = 0.0f;");
    String pass =
        c.substring(c.indexOf("for (int32_t l_9"), c.indexOf("for (int32_t k_inner_inner"));
    java.util.regex.Matcher m =
        java.util.regex.Pattern.compile("PaddedInput\\[[^\\]]*?l_9\\)?( \\+ (\\d+))?\\]")
            .matcher(pass);
    List<Integer> offsets = new java.util.ArrayList<>();
    while (m.find()) {
      offsets.add(m.group(2) == null ? 0 : Integer.parseInt(m.group(2)));
    }
    assertThat(offsets).hasSize(100).isSorted();
    assertThat(offsets.subList(0, 7)).containsExactly(0, 1, 2, 3, 4, 100, 100);
    // Four rows configured where they are not the default (3x3, 7x7, a ragged row): the oracle's.
    for (Tensor out :
        List.of(
            fused(depthwise(24, 29, 3, 1, 1, true)),
            depthwise(16, 13, 7, 1, 1, true),
            fused(depthwise(24, 29, 5, 1, 1, true)))) {
      Map<String, Integer> v =
          new TreeMap<>(
              AutoScheduler.untunedConfig(
                      Target.C, List.of(out), SketchRules.defaults(), new AnalyticPredictor())
                  .values());
      v.put("DepthwiseConv2d.rows", 4);
      Schedule s = AutoScheduler.generate(Target.C, List.of(out), Knobs.configured(v));
      Check.check(s, OpSchedules.args(s), Map.of(), EnumSet.of(Check.Backend.C), 1e-4, 1e-4);
    }
  }

  /** A 5x5 depthwise convolution over one plane: bands as tasks, several rows a pass. */
  private static Tensor onePlane5x5(int h, int w) {
    return Nn.depthwiseConv2dNchw(
        ph("Plane5", 1, 1, h, w), ph("F15", 1, 1, 5, 5), 1, 1, new Padding(2, 2, 2, 2), 1);
  }

  private static List<Integer> rowsChoices(Tensor out) {
    return AutoScheduler.space(Target.C, List.of(out)).knobs().entrySet().stream()
        .filter(e -> e.getKey().endsWith(".rows"))
        .findFirst()
        .orElseThrow()
        .getValue();
  }

  /**
   * Symbolic height and width: the row buffer on the heap, the plane whole, against the oracle in C
   * and Java.
   */
  @Test
  void symbolicPlanesBuildAndMatchTheOracle() {
    Var h = TE.var("h");
    Var w = TE.var("w");
    Tensor in = ph("SymIn", 1, 3, h, w);
    Tensor out =
        fused(Nn.depthwiseConv2dNchw(in, ph("F", 3, 1, 3, 3), 1, 1, new Padding(1, 1, 1, 1), 1));
    assertThat(pickedLayout(out)).isEqualTo(CpuRowWindow.LAYOUT);
    for (Target t : List.of(Target.C, Target.JAVA)) {
      Schedule s = AutoScheduler.untuned(t, List.of(out));
      Check.Backend backend = t == Target.C ? Check.Backend.C : Check.Backend.JAVA;
      for (long[] hw : new long[][] {{19, 23}, {1, 1}, {40, 17}}) {
        Map<Var, Long> dims = new HashMap<>();
        dims.put(h, hw[0]);
        dims.put(w, hw[1]);
        Check.check(s, OpSchedules.args(s), dims, EnumSet.of(backend), 1e-4, 1e-4);
      }
    }
  }

  private static Stage stage(Schedule s, String name) {
    return s.stages().stream().filter(t -> t.name().equals(name)).findFirst().orElseThrow();
  }

  private static String c(Schedule s) {
    return CCodegen.generate(
        List.of(Lower.lower(s, "k", OpSchedules.args(s), Target.C, null)), "m");
  }
}
