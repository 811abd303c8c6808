package dev.kernelgen.bench.gpu;

import static dev.kernelgen.te.TE.FLOAT32;
import static dev.kernelgen.te.TE.placeholder;

import dev.kernelgen.annotations.Target;
import dev.kernelgen.autosched.AutoScheduler;
import dev.kernelgen.autosched.VectorUnit;
import dev.kernelgen.bench.CpuInfo;
import dev.kernelgen.codegen.NativeToolchain;
import dev.kernelgen.json.Json;
import dev.kernelgen.measure.CHarnessMeasurer;
import dev.kernelgen.measure.DeviceMeasurer;
import dev.kernelgen.measure.Modules;
import dev.kernelgen.runtime.Devices;
import dev.kernelgen.runtime.cuda.CudaDevice;
import dev.kernelgen.schedule.Schedule;
import dev.kernelgen.spec.Knobs;
import dev.kernelgen.spec.OperatorDef;
import dev.kernelgen.te.Tensor;
import dev.kernelgen.topi.Conv;
import dev.kernelgen.topi.DefaultSchedules;
import dev.kernelgen.topi.DepthwiseSchedules;
import dev.kernelgen.topi.Elementwise;
import dev.kernelgen.topi.Linalg;
import dev.kernelgen.topi.Nn;
import dev.kernelgen.topi.Padding;
import dev.kernelgen.topi.Pooling;
import dev.kernelgen.topi.Reduction;
import dev.kernelgen.topi.Transform;
import dev.kernelgen.topi.Winograd;
import dev.kernelgen.tune.Configuration;
import dev.kernelgen.tune.Measurement;
import dev.kernelgen.tune.Measurer;
import dev.kernelgen.tune.TuningTask;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.function.Function;
import java.util.stream.Stream;

/**
 * Issue 13's floor: every library operator's untuned pick (what {@code generate} embeds when no
 * tuning record exists: {@link DefaultSchedules#forTarget}) and the depthwise sample's schedule
 * methods, and operators written as a user would ({@link UserOperators}), each timed beside the
 * naive loop nest of its own compute definition (the auto-scheduler's {@code sketch = 1}: on C the
 * unscheduled loops, serially; on a GPU a thread per output element with the reduction in a
 * register), on C and, where a CUDA device is present, on CUDA, in one table. Both go through the
 * measure module's measurers (oracle check, warm-up, repeats, median), floor and pick in
 * alternating rounds (default 3), each side's fastest median kept.
 *
 * <p>Usage: {@code FloorBench OUT_JSON [--only TEXT[,TEXT...]] [--rounds N] [--set new-user]};
 * {@code bench/gpu.sh floor OUT} on the GPU machine; elsewhere the same main on {@code .device/lib}
 * (after {@code bench/gpu.sh prepare}) measures C only. The report and the JSON carry the CPU model
 * and ISA level ({@link CpuInfo}).
 */
public final class FloorBench {
  private FloorBench() {}

  /** An operator at a moderate shape, with the schedule a user's build would embed for it. */
  record Op(String name, OperatorDef def, Function<Target, Schedule> pick) {
    static Op library(String name, List<Tensor> inputs, Tensor... outputs) {
      OperatorDef def = OperatorDef.of(inputs, outputs);
      // C: the pick of the ISA level whose library runs here, as generate builds for that level.
      return new Op(
          name,
          def,
          t ->
              DefaultSchedules.forTarget(
                  t,
                  t == Target.C ? Modules.vectorUnit() : VectorUnit.AVX512,
                  def,
                  Knobs.defaults()));
    }
  }

  static List<Op> operators() {
    List<Op> ops = new ArrayList<>();
    Tensor a = placeholder("A", FLOAT32, 512, 512);
    Tensor b = placeholder("B", FLOAT32, 512, 512);
    ops.add(Op.library("matmul_512", List.of(a, b), Linalg.matmul(a, b)));
    Tensor x = placeholder("X", FLOAT32, 256, 1024);
    Tensor w = placeholder("W", FLOAT32, 1000, 1024);
    Tensor bias = placeholder("Bias", FLOAT32, 1000);
    ops.add(
        Op.library(
            "dense_bias_relu_256x1024x1000",
            List.of(x, w, bias),
            Elementwise.relu(Elementwise.add(Linalg.dense(x, w), bias))));
    Tensor ba = placeholder("BA", FLOAT32, 16, 128, 64);
    Tensor bb = placeholder("BB", FLOAT32, 16, 64, 128);
    ops.add(Op.library("batch_matmul_16x128x64x128", List.of(ba, bb), Linalg.batchMatmul(ba, bb)));
    Tensor in = placeholder("Input", FLOAT32, 1, 64, 56, 56);
    Tensor f = placeholder("Filter", FLOAT32, 64, 64, 3, 3);
    Padding same = Padding.same(56, 56, 3, 3, 1, 1, 1);
    ops.add(
        Op.library("conv2d_1x64x56x56_f64", List.of(in, f), Conv.conv2dNchw(in, f, 1, 1, same, 1)));
    ops.add(
        Op.library(
            "conv2d_winograd2_1x64x56x56_f64",
            List.of(in, f),
            Winograd.conv2dNchw(in, f, same, 2)));
    Tensor dwf = placeholder("DwFilter", FLOAT32, 64, 1, 3, 3);
    ops.add(
        Op.library(
            "depthwise_1x64x56x56",
            List.of(in, dwf),
            Nn.depthwiseConv2dNchw(in, dwf, 1, 1, same, 1)));
    Tensor nhwc = placeholder("InputNhwc", FLOAT32, 1, 56, 56, 64);
    Tensor hwcm = placeholder("FilterHwcm", FLOAT32, 3, 3, 64, 1);
    ops.add(
        Op.library(
            "depthwise_nhwc_1x56x56x64",
            List.of(nhwc, hwcm),
            Conv.depthwiseConv2dNhwc(nhwc, hwcm, 1, 1, same, 1)));
    Tensor rows = placeholder("Rows", FLOAT32, 1024, 1024);
    ops.add(Op.library("softmax_1024x1024", List.of(rows), Reduction.softmax(rows, 1)));
    Tensor gamma = placeholder("Gamma", FLOAT32, 1024);
    Tensor beta = placeholder("Beta", FLOAT32, 1024);
    ops.add(
        Op.library(
            "layer_norm_1024x1024",
            List.of(rows, gamma, beta),
            Nn.layerNorm(rows, gamma, beta, 1, 1e-5)));
    ops.add(Op.library("row_sum_1024x1024", List.of(rows), Reduction.sum(rows, false, 1)));
    // A long reduction into two outputs (the rfactor rule).
    Tensor longRows = placeholder("LongRows", FLOAT32, 2, 1 << 21);
    ops.add(Op.library("row_sum_2x2097152", List.of(longRows), Reduction.sum(longRows, false, 1)));
    Tensor img = placeholder("Image", FLOAT32, 1, 64, 112, 112);
    ops.add(
        Op.library(
            "max_pool_3x3s2_1x64x112x112",
            List.of(img),
            Pooling.maxPool2d(img, 3, 3, 2, 2, Padding.same(112, 112, 3, 3, 2, 2, 1))));
    ops.add(Op.library("global_avg_pool_1x64x112x112", List.of(img), Pooling.globalAvgPool(img)));
    Tensor v = placeholder("V", FLOAT32, 4, 1024, 1024);
    ops.add(Op.library("sigmoid_4M", List.of(v), Elementwise.sigmoid(v)));
    ops.add(Op.library("transpose_4x1024x1024", List.of(v), Transform.transpose(v, 0, 2, 1)));
    Tensor g = placeholder("G", FLOAT32, 64);
    Tensor be = placeholder("Be", FLOAT32, 64);
    Tensor mean = placeholder("Mean", FLOAT32, 64);
    Tensor var = placeholder("Var", FLOAT32, 64);
    ops.add(
        Op.library(
            "batch_norm_1x64x112x112",
            List.of(img, g, be, mean, var),
            Elementwise.batchNormInference(img, g, be, mean, var, 1e-5, 1)));
    ops.addAll(sampleOperators());
    ops.addAll(UserOperators.all());
    ops.addAll(UserLayouts.all());
    ops.addAll(UserStencils.all());
    ops.addAll(UserMetrics.all());
    return ops;
  }

  /**
   * The depthwise sample's two operators at its seed shape with its own schedule methods' defaults
   * (samples/depthwise-conv DepthwiseSpec: the seed's GPU tiles, the plane-parallel CPU rows).
   */
  static List<Op> sampleOperators() {
    List<Op> ops = new ArrayList<>();
    for (boolean fused : new boolean[] {false, true}) {
      Tensor input = placeholder("input", FLOAT32, 1, 256, 96, 96);
      Tensor filter = placeholder("filter", FLOAT32, 256, 1, 3, 3);
      Tensor scale = placeholder("scale", FLOAT32, 256);
      Tensor shift = placeholder("shift", FLOAT32, 256);
      Tensor conv = Nn.depthwiseConv2dNchw(input, filter, 1, 1, new Padding(1, 1, 1, 1), 1);
      Tensor out = fused ? Nn.relu(Nn.scaleShift(conv, scale, shift)) : conv;
      OperatorDef def =
          OperatorDef.of(
              fused ? List.of(input, filter, scale, shift) : List.of(input, filter), out);
      ops.add(
          new Op(
              "sample_" + (fused ? "depthwiseScaleShiftRelu" : "depthwise") + "_1x256x96x96",
              def,
              t ->
                  t == Target.CUDA || t == Target.OPENCL
                      ? DepthwiseSchedules.gpu(
                          conv, out, new DepthwiseSchedules.GpuConfig(32, 32, 16, 16, 1, 1))
                      : DepthwiseSchedules.cpu(conv, out, 0, t)));
    }
    return ops;
  }

  public static void main(String[] args) throws Exception {
    Path out = Path.of(args.length > 0 && !args[0].startsWith("--") ? args[0] : "floor.json");
    int onlyAt = List.of(args).indexOf("--only");
    String only = onlyAt >= 0 ? args[onlyAt + 1] : null;
    int roundsAt = List.of(args).indexOf("--rounds");
    int rounds = roundsAt >= 0 ? Integer.parseInt(args[roundsAt + 1]) : 3;
    // --targets C or CUDA: only that target's rows (the GPU host's C rows are noisy and slow).
    int targetsAt = List.of(args).indexOf("--targets");
    List<String> targets =
        List.of(
            (targetsAt >= 0 ? args[targetsAt + 1] : "C,CUDA").toUpperCase(Locale.ROOT).split(","));
    NativeToolchain tc = NativeToolchain.fromEnvironment();
    CHarnessMeasurer c = CHarnessMeasurer.fromEnvironment();
    CpuInfo cpu = CpuInfo.detect();
    System.out.println(cpu.line());
    // --set new-user: the operators of NewUserOps instead of the floor table's.
    int setAt = List.of(args).indexOf("--set");
    boolean newUser = setAt >= 0 && args[setAt + 1].equals("new-user");
    List<Op> ops =
        (newUser ? NewUserOps.all() : operators())
            .stream()
                .filter(
                    op -> only == null || Stream.of(only.split(",")).anyMatch(op.name()::contains))
                .toList();
    List<Map<String, Object>> rows = new ArrayList<>();
    System.out.printf(
        "%-38s %-5s %12s %12s %9s%n", "operator", "tgt", "floor_us", "pick_us", "floor/pick");
    // Every C row before the GPU is opened: with a CUDA context in this JVM, C kernels of 20 to
    // 100 us on all 16 cores of the H200's host measured 2 to 8 ms now and then (whole multiples of
    // the 2 ms scheduler tick: one of their OpenMP threads waiting behind another runnable thread).
    if (targets.contains("C")) {
      table(Target.C, c, ops, rows, rounds);
    }
    Optional<CudaDevice> cuda = targets.contains("CUDA") ? Devices.cuda() : Optional.empty();
    if (cuda.isPresent()) {
      System.out.println("gpu: " + cuda.get().name());
      try (DeviceMeasurer m =
          new DeviceMeasurer(cuda.get(), tc, Runtime.getRuntime().availableProcessors())
              .referencesFrom(c)) {
        table(Target.CUDA, m, ops, rows, rounds);
      }
    }
    long below =
        rows.stream()
            .filter(
                r ->
                    r.get("floor_us") instanceof Double f
                        && r.get("pick_us") instanceof Double p
                        && p > f
                        && !Boolean.TRUE.equals(r.get("same_kernel")))
            .count();
    long failed = rows.stream().filter(r -> r.containsKey("detail")).count();
    System.out.printf(
        "%d rows: %d picks slower than their floor (other than the floor's own kernel), %d rows with a failed measurement%n",
        rows.size(), below, failed);
    Map<String, Object> report = new LinkedHashMap<>();
    report.put("machine", cpu.toJson());
    report.put("gpu", cuda.map(CudaDevice::name).orElse(null));
    report.put("rows", rows);
    Files.writeString(out, Json.pretty(report));
    c.close();
  }

  /** The rows of target {@code t}: each operator's floor and pick, timed by {@code m}. */
  private static void table(
      Target t, Measurer m, List<Op> ops, List<Map<String, Object>> rows, int rounds) {
    for (Op op : ops) {
      Measurement floor;
      Measurement pick;
      try {
        // Alternating rounds, each side's fastest median kept: a window of interference on these
        // shared machines (a 2-core VM's row at 10x its usual time for a few seconds) then slows
        // one round of one side, not the row.
        floor = time(m, op, t, true);
        pick = time(m, op, t, false);
        for (int round = 1; round < rounds; round++) {
          floor = faster(floor, time(m, op, t, true));
          pick = faster(pick, time(m, op, t, false));
        }
      } catch (RuntimeException x) {
        // A measurer reports a candidate's failure as a measurement; anything else (the
        // reference, the device) is this row's failure, not the table's.
        rows.add(Map.of("operator", op.name(), "target", t.name(), "detail", String.valueOf(x)));
        System.out.printf("%-38s %-5s failed: %s%n", op.name(), t, x);
        continue;
      }
      Map<String, Object> r = new LinkedHashMap<>();
      r.put("operator", op.name());
      r.put("target", t.name());
      r.put("floor_us", floor.isOk() ? floor.medianUs() : null);
      r.put("pick_us", pick.isOk() ? pick.medianUs() : null);
      boolean same = sameKernel(op, t);
      r.put("same_kernel", same);
      r.put("floor_status", floor.status().name());
      r.put("pick_status", pick.status().name());
      if (!floor.isOk() || !pick.isOk()) {
        r.put(
            "detail",
            (floor.isOk() ? "" : floor.detail()) + " " + (pick.isOk() ? "" : pick.detail()));
      }
      rows.add(r);
      System.out.printf(
          "%-38s %-5s %12s %12s %9s%n",
          op.name(),
          t,
          floor.isOk() ? String.format("%.1f", floor.medianUs()) : floor.status(),
          pick.isOk() ? String.format("%.1f", pick.medianUs()) : pick.status(),
          floor.isOk() && pick.isOk()
              ? String.format("%.2fx", floor.medianUs() / pick.medianUs())
                  + (same ? " (the same kernel)" : "")
              : "-");
    }
  }

  /**
   * Whether the pick's generated code is the floor's own, character for character: then the two
   * timings differ by the measurement's noise only, and the pick is not slower than its floor.
   */
  private static boolean sameKernel(Op op, Target t) {
    return code(floor(op, t), op, t).equals(code(op.pick().apply(t), op, t));
  }

  /** The naive loop nest of the operator's own compute: the generated floor sketch. */
  private static Schedule floor(Op op, Target t) {
    return AutoScheduler.generate(
        t, op.def().outputs(), Knobs.configured(Map.of(AutoScheduler.SKETCH, AutoScheduler.NAIVE)));
  }

  private static String code(Schedule s, Op op, Target t) {
    var f = dev.kernelgen.lower.Lower.lower(s, "k", op.def().args(), t, null);
    return t == Target.C
        ? dev.kernelgen.codegen.CCodegen.generate(List.of(f), "m")
        : dev.kernelgen.codegen.CudaCodegen.generate(
            dev.kernelgen.lower.SplitHostDevice.split(f).kernels(), "m");
  }

  /** The one with the smaller median of two measurements of one kernel; a failure wins. */
  private static Measurement faster(Measurement a, Measurement b) {
    if (!a.isOk() || !b.isOk()) {
      return a.isOk() ? b : a;
    }
    return b.medianUs() < a.medianUs() ? b : a;
  }

  private static Measurement time(Measurer m, Op op, Target t, boolean naive) {
    Function<Knobs, Schedule> scheduler = naive ? k -> floor(op, t) : k -> op.pick().apply(t);
    TuningTask task =
        new TuningTask(
            "FloorBench/" + op.name() + (naive ? "/floor" : "/pick"), t, op.def(), scheduler, "k");
    return m.measure(task, List.of(Configuration.of(Map.of()))).get(0);
  }
}
