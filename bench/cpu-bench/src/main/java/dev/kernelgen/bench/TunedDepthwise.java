package dev.kernelgen.bench;

import static dev.kernelgen.te.TE.FLOAT32;
import static dev.kernelgen.te.TE.placeholder;

import dev.kernelgen.annotations.Target;
import dev.kernelgen.autosched.AnalyticPredictor;
import dev.kernelgen.autosched.AutoScheduler;
import dev.kernelgen.autosched.SketchRules;
import dev.kernelgen.codegen.NativeToolchain;
import dev.kernelgen.eval.NDArray;
import dev.kernelgen.lower.Lower;
import dev.kernelgen.measure.CHarnessMeasurer;
import dev.kernelgen.measure.Modules;
import dev.kernelgen.schedule.Schedule;
import dev.kernelgen.spec.OperatorDef;
import dev.kernelgen.te.Tensor;
import dev.kernelgen.tir.PrimFunc;
import dev.kernelgen.topi.DepthwiseCpuSpace;
import dev.kernelgen.topi.Nn;
import dev.kernelgen.tune.Tuner;
import dev.kernelgen.tune.TuningLog;
import dev.kernelgen.tune.TuningRecord;
import dev.kernelgen.tune.TuningTask;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * "Ours", tuned: for each workload (plain and fused) the knobs of the CPU depthwise schedule space
 * ({@link DepthwiseCpuSpace}, in the operator library) are searched on this machine with the tuner
 * (C candidates compiled in parallel and timed in their own processes, checked against {@link
 * JavaLoops}), the trials appended to a tuning log (a second run resumes from it), and the best
 * configuration compiled and called through the runtime's FFM device, as {@link KernelgenDepthwise}
 * is.
 */
public final class TunedDepthwise implements OursKernel {
  private final Path logFile;
  private final Tuner.Options options;
  private final CHarnessMeasurer measurer;
  private final Map<String, Map<String, Object>> tuning = new LinkedHashMap<>();

  /** Whether the space searched is the auto-scheduler's (no template), from its untuned pick. */
  private final boolean generated;

  public TunedDepthwise(Path logFile, int trials, boolean generated) {
    this.logFile = logFile;
    this.generated = generated;
    this.options =
        Tuner.Options.defaults()
            .withTrials(trials)
            .withBatch(Math.max(2, Runtime.getRuntime().availableProcessors()))
            .withPatience(Math.max(4, trials / 2))
            .withTimeLimit(Duration.ofMinutes(5));
    this.measurer =
        new CHarnessMeasurer(
            NativeToolchain.fromEnvironment(),
            Runtime.getRuntime().availableProcessors(),
            3,
            11,
            120,
            TunedDepthwise::reference);
  }

  @Override
  public String name() {
    return "kernelgen C, tuned per workload"
        + (generated ? " in the auto-scheduler's space (no template)" : "")
        + " (log "
        + logFile
        + ")";
  }

  /** Per workload label: tuning seconds, trials, failures, space size, best configuration. */
  public Map<String, Map<String, Object>> tuning() {
    return tuning;
  }

  /** The operator and its tensors for a workload. */
  record Op(OperatorDef def, Tensor conv, Tensor out) {}

  static Op operator(Workload w, boolean fused) {
    Tensor in = placeholder("Input", FLOAT32, w.n(), w.c(), w.h(), w.w());
    Tensor filter = placeholder("Filter", FLOAT32, w.c(), w.multiplier(), w.kernel(), w.kernel());
    Tensor scale = placeholder("Scale", FLOAT32, w.outChannels());
    Tensor shift = placeholder("Shift", FLOAT32, w.outChannels());
    dev.kernelgen.topi.Padding pad =
        new dev.kernelgen.topi.Padding(w.padTop(), w.padLeft(), w.padBottom(), w.padRight());
    Tensor conv = Nn.depthwiseConv2dNchw(in, filter, w.stride(), w.stride(), pad, 1);
    Tensor out = fused ? Nn.relu(Nn.scaleShift(conv, scale, shift)) : conv;
    OperatorDef def =
        fused
            ? OperatorDef.of(List.of(in, filter, scale, shift), out)
            : OperatorDef.of(List.of(in, filter), out);
    return new Op(def, conv, out);
  }

  /** The Java loops as the oracle: the interpreter is too slow for the large workloads. */
  private static List<NDArray> reference(TuningTask task, List<NDArray> inputs) {
    Workload w = WORKLOADS.get(task.kernelName());
    boolean fused = task.def().inputs().size() == 4;
    float[][] a = new float[4][];
    for (int i = 0; i < inputs.size(); i++) {
      a[i] = inputs.get(i).segment().toArray(ValueLayout.JAVA_FLOAT);
    }
    float[] out = new float[w.outputSize()];
    JavaLoops.of(w, fused).run(a[0], a[1], a[2], a[3], out);
    long[] shape = task.shape().get(task.shape().size() - 1).stream().mapToLong(x -> x).toArray();
    return List.of(NDArray.wrap(FLOAT32, MemorySegment.ofArray(out), shape));
  }

  private static final Map<String, Workload> WORKLOADS =
      java.util.Collections.synchronizedMap(new java.util.HashMap<>());

  @Override
  public DepthwiseImpl create(Workload w, boolean fused) {
    Op op = operator(w, fused);
    String kernel =
        (fused ? "depthwise_fused_" : "depthwise_") + w.name().replaceAll("[^A-Za-z0-9]+", "_");
    WORKLOADS.put(kernel, w);
    List<Tensor> outputs = List.of(op.out());
    TuningTask task =
        new TuningTask(
            "CpuBench/" + (fused ? "depthwise_fused" : "depthwise") + (generated ? "_auto" : ""),
            Target.C,
            op.def(),
            generated
                ? knobs -> AutoScheduler.generate(Target.C, outputs, knobs)
                : knobs -> DepthwiseCpuSpace.schedule(op.conv(), op.out(), knobs),
            kernel);
    // The auto-scheduler's search starts from its untuned pick, as kernels:tune's does.
    Tuner.Options opts =
        generated
            ? options.withFirst(
                List.of(
                    AutoScheduler.untunedConfig(
                        Target.C,
                        Modules.vectorUnit(),
                        outputs,
                        SketchRules.defaults(),
                        new AnalyticPredictor())))
            : options;
    String label = w.name() + (fused ? " fused" : "");
    Instant start = Instant.now();
    List<TuningRecord> previous = TuningLog.read(logFile, line -> System.out.println("  " + line));
    Tuner.Result r =
        Tuner.tune(
            task,
            measurer,
            opts,
            previous,
            batch -> TuningLog.append(logFile, TuningRecord.of(task, measurer, batch)),
            p -> System.out.printf(Locale.ROOT, "    tuning %s: %s%n", label, p.line()));
    double seconds = Duration.between(start, Instant.now()).toMillis() / 1000.0;
    Map<String, Object> t = new LinkedHashMap<>();
    t.put("tuning_s", Math.round(seconds * 10) / 10.0);
    t.put("space", r.space().size());
    t.put("trials", r.measured().size());
    t.put("failed", r.failed());
    t.put("resumed", r.resumed());
    t.put("best", r.best() == null ? null : r.best().config().key());
    t.put("best_harness_us", r.best() == null ? null : Math.round(r.best().medianUs() * 10) / 10.0);
    tuning.put(label, t);
    System.out.printf(Locale.ROOT, "    tuned %s in %.1f s: %s%n", label, seconds, t);
    if (r.best() == null) {
      return null;
    }
    Schedule s = task.schedule(r.best().config());
    PrimFunc f = Lower.lower(s, kernel, op.def().args(), Target.C, null);
    return new KernelgenDepthwise.Prepared(w, fused, KernelgenDepthwise.compile(f));
  }
}
