package dev.kernelgen.autosched;

import dev.kernelgen.algo.ConvRewrite;
import dev.kernelgen.algo.Winograd;
import dev.kernelgen.annotations.Target;
import dev.kernelgen.te.Expr;
import dev.kernelgen.te.IntImm;
import dev.kernelgen.te.Tensor;
import dev.kernelgen.tune.ConfigSpace;
import dev.kernelgen.tune.Configuration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.atomic.AtomicReference;

/**
 * The sketch {@link AutoScheduler#WINOGRAD}: the operator's DAG with its direct 3x3, stride-1
 * convolutions computed by Winograd's F(2x2, 3x3) ({@link ConvRewrite}), scheduled by the same
 * rules, its knobs named {@value #KNOBS}{@code <stage>.<knob>} beside the direct DAG's. The tuner
 * races it against the direct sketches like any knob; the untuned pick takes it by {@link #pays}.
 */
final class WinogradSketch {
  private WinogradSketch() {}

  /** The prefix of the rewritten DAG's knobs. */
  static final String KNOBS = "winograd.";

  /** The smallest input and output channel counts where the untuned pick takes F(2x2). */
  static final long MIN_CHANNELS = 32;

  /** The fewest 2x2 tiles of an output plane where the untuned pick takes F(2x2). */
  static final long MIN_TILES = 512;

  /** The last operator rewritten and its rewrite (null: none matched). */
  private record Rewritten(List<Tensor> outputs, List<Tensor> rewrite) {}

  private static final AtomicReference<Rewritten> LAST = new AtomicReference<>();

  /**
   * The rewritten outputs, or null where the target is Java or no convolution matches. The untuned
   * pick's search builds the same operator hundreds of times: its rewrite is kept (0.1-1 ms each).
   */
  static List<Tensor> rewrite(Target target, List<Tensor> outputs) {
    if (target == Target.JAVA) {
      return null;
    }
    Rewritten last = LAST.get();
    if (last != null && last.outputs().equals(outputs)) {
      return last.rewrite();
    }
    List<Tensor> rewrite = ConvRewrite.winograd(outputs, 2);
    LAST.set(new Rewritten(List.copyOf(outputs), rewrite));
    return rewrite;
  }

  /**
   * Whether the untuned pick takes F(2x2) on {@code target}: on C, where every convolution it
   * rewrites has constant shapes with at least {@value #MIN_CHANNELS} input and output channels and
   * {@value #MIN_TILES} tiles a plane. The predictor ranks schedules of one DAG, not two algorithms
   * (it puts F(2x2) 13x above the direct convolution at [1,64,56,56]x64, measured 0.65x), so the
   * choice is this rule, from the untuned picks of both sketches side by side ({@code bench/cpu.sh
   * ops --generated --conv}, 2-core Zen 4, AVX-512, us): F(2x2) won on planes of 56x56 and 112x112
   * with 32 to 128 channels (734 against 1124 at [1,64,56,56]x64, 1309 against 2186 at x128, 813
   * against 1163 at [1,32,112,112]x32) and lost on smaller planes (1849 against 1096 at
   * [1,128,28,28]x128, 1864 against 1602 at 14x14 x256, 39 ms against 3.7 at 7x7 x512: few tiles
   * make its products narrow) and with 16 channels (137 against 77 at 56x56). Not on GPUs, where it
   * was never measured: there only the tuner takes it.
   */
  static boolean pays(Target target, List<Tensor> outputs) {
    if (target != Target.C) {
      return false;
    }
    List<ConvRewrite.Match> convs = ConvRewrite.matches(outputs);
    for (ConvRewrite.Match c : convs) {
      long channels = constant(c.rc().dom().extent());
      List<Expr> out = c.conv().shape();
      long features = constant(out.get(1));
      long rows = constant(Winograd.tiles(out.get(2), 2));
      long cols = constant(Winograd.tiles(out.get(3), 2));
      long tiles = rows < 0 || cols < 0 ? -1 : rows * cols;
      if (channels < MIN_CHANNELS || features < MIN_CHANNELS || tiles < MIN_TILES) {
        return false;
      }
    }
    return !convs.isEmpty();
  }

  /** {@code e}'s value, or -1 where it is symbolic. */
  private static long constant(Expr e) {
    return e instanceof IntImm i ? i.value() : -1;
  }

  /**
   * The knobs of the direct DAG's sketches ({@code winograd} false) or of the rewritten DAG's, each
   * with {@value AutoScheduler#SKETCH}.
   */
  static ConfigSpace knobsOf(ConfigSpace space, boolean winograd) {
    Map<String, List<Integer>> knobs = new LinkedHashMap<>();
    for (var e : space.knobs().entrySet()) {
      String k = e.getKey();
      if (k.equals(AutoScheduler.SKETCH) || k.startsWith(KNOBS) == winograd) {
        knobs.put(k, e.getValue());
      }
    }
    return knobs.size() == space.knobs().size() ? space : new ConfigSpace(knobs);
  }

  /**
   * One configuration holding both sketches' untuned picks ({@code direct}'s and {@code winograd}'s
   * knobs), so that one that sets only the sketch gets that sketch's pick; its sketch {@code
   * winograd}'s where {@code choose} and that pick is the rewritten DAG's (not the naive floor).
   */
  static Configuration merged(
      ConfigSpace space, Configuration direct, Configuration winograd, boolean choose) {
    Map<String, Integer> v = new TreeMap<>(space.defaults().values());
    v.putAll(winograd.values());
    v.putAll(direct.values());
    if (choose && winograd.values().get(AutoScheduler.SKETCH) == AutoScheduler.WINOGRAD) {
      v.put(AutoScheduler.SKETCH, AutoScheduler.WINOGRAD);
    }
    return Configuration.of(v);
  }
}
