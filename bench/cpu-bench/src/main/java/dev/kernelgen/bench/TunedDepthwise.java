package dev.kernelgen.bench;

import static dev.kernelgen.te.TE.FLOAT32;
import static dev.kernelgen.te.TE.placeholder;

import dev.kernelgen.annotations.Target;
import dev.kernelgen.codegen.NativeToolchain;
import dev.kernelgen.eval.NDArray;
import dev.kernelgen.lower.Lower;
import dev.kernelgen.schedule.Schedule;
import dev.kernelgen.schedule.Stage;
import dev.kernelgen.spec.Knobs;
import dev.kernelgen.spec.OperatorDef;
import dev.kernelgen.te.IterVar;
import dev.kernelgen.te.Tensor;
import dev.kernelgen.tir.PrimFunc;
import dev.kernelgen.topi.DepthwiseSchedules;
import dev.kernelgen.topi.Nn;
import dev.kernelgen.tune.CHarnessMeasurer;
import dev.kernelgen.tune.Measurement;
import dev.kernelgen.tune.Tuner;
import dev.kernelgen.tune.TuningLog;
import dev.kernelgen.tune.TuningRecord;
import dev.kernelgen.tune.TuningTask;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * "Ours", tuned: for each workload (plain and fused) the CPU depthwise schedule's knobs are
 * searched on this machine with the tuner (C candidates compiled in parallel and timed in their own
 * processes, checked against {@link JavaLoops}), the trials appended to a tuning log (a second run
 * resumes from it), and the best configuration compiled and called through the runtime's FFM
 * device, as {@link KernelgenDepthwise} is.
 *
 * <p>Knobs: {@code vector} (0: whole rows vectorized, else chunks of 8 or 16), {@code rows} (rows
 * of output per parallel task; 0: a whole plane per task), {@code copy_padded} (copy each task's
 * padded input into a local buffer, or read the input with bounds checks), {@code unroll_taps},
 * {@code row_block} (output rows computed together) and, for the plain convolution, {@code
 * local_sum} (sum in a local row buffer then copy, or in the output).
 */
public final class TunedDepthwise implements OursKernel {
  private final Path logFile;
  private final Tuner.Options options;
  private final CHarnessMeasurer measurer;
  private final Map<String, Map<String, Object>> tuning = new LinkedHashMap<>();

  public TunedDepthwise(Path logFile, int trials) {
    this.logFile = logFile;
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
    return "kernelgen C, tuned per workload (log " + logFile + ")";
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

  /**
   * The CPU schedule of {@link DepthwiseSchedules#cpu} with more knobs: how many output rows a
   * parallel task computes, whether the padded input is copied per task, whether taps unroll.
   */
  static Schedule schedule(Tensor conv, Tensor out, Knobs k) {
    int vector = k.knob("vector", 0, 8, 16);
    int rows = k.knob("rows", 0, 4, 16);
    int copy = k.knob("copy_padded", 1, 0);
    int unroll = k.knob("unroll_taps", 1, 0);
    int block = k.knob("row_block", 1, 2, 4);
    // The plain convolution sums either in a row buffer that is then copied to the output, as the
    // fused operator's scale_shift and relu read it (DepthwiseSchedules.rowSum), or in the output.
    int localSum = out == conv ? k.knob("local_sum", 1, 0) : 1;
    Schedule s = Schedule.create(out);
    Tensor sum = localSum == 1 ? DepthwiseSchedules.rowSum(s, conv, out) : conv;
    Stage so = s.stage(out);
    IterVar task = so.fuse(so.axis().get(0), so.axis().get(1));
    IterVar row = so.axis().get(2);
    if (rows > 0) {
      Stage.Split r = so.split(row, rows);
      task = so.fuse(task, r.outer());
      row = r.inner();
    }
    so.parallel(task);
    Stage sc = s.stage(sum);
    // Row blocking: `block` output rows computed together inside the vectorized column loop, the
    // rows and taps unrolled, so that an input row loaded for one output row serves the others
    // it overlaps (the C compiler merges the identical loads).
    if (sum != out) {
      IterVar at = row;
      if (block > 1) {
        at = so.split(row, block).outer();
      }
      sc.computeAt(so, at);
      vectorizeRow(so, so.axis().get(3), vector);
      IterVar convRow = sc.axis().get(2);
      List<IterVar> cols = vectorizeColumns(sc, sc.axis().get(3), vector);
      if (block > 1) {
        reorderAfter(sc, cols, convRow);
        sc.unroll(convRow);
      }
    } else {
      IterVar ri = null;
      if (block > 1) {
        Stage.Split b = so.split(row, block);
        ri = b.inner();
      }
      List<IterVar> cols = vectorizeColumns(sc, sc.axis().get(3), vector);
      if (ri != null) {
        reorderAfter(sc, cols, ri);
        sc.unroll(ri);
      }
    }
    if (unroll == 1 || block > 1) {
      sc.unroll(sc.reduceAxis(0));
      sc.unroll(sc.reduceAxis(1));
    }
    Tensor padded = DepthwiseSchedules.paddedInput(conv);
    if (padded != null) {
      if (copy == 1) {
        s.stage(padded).computeAt(so, task);
      } else {
        s.stage(padded).computeInline();
      }
    }
    return s;
  }

  private static void vectorizeRow(Stage st, IterVar row, int vector) {
    vectorizeColumns(st, row, vector);
  }

  /** Vectorizes the columns (whole, or in chunks); returns their loops, outermost first. */
  private static List<IterVar> vectorizeColumns(Stage st, IterVar row, int vector) {
    if (vector <= 0) {
      st.vectorize(row);
      return List.of(row);
    }
    Stage.Split sj = st.split(row, vector);
    st.vectorize(sj.inner());
    return List.of(sj.outer(), sj.inner());
  }

  /** Moves {@code rowLoop} inside the column loops, before the filter taps. */
  private static void reorderAfter(Stage st, List<IterVar> cols, IterVar rowLoop) {
    List<IterVar> order = new ArrayList<>(cols);
    order.add(rowLoop);
    order.add(st.reduceAxis(0));
    order.add(st.reduceAxis(1));
    st.reorder(order.toArray(IterVar[]::new));
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
    TuningTask task =
        new TuningTask(
            "CpuBench/" + (fused ? "depthwise_fused" : "depthwise"),
            Target.C,
            op.def(),
            knobs -> schedule(op.conv(), op.out(), knobs),
            kernel);
    String label = w.name() + (fused ? " fused" : "");
    Instant start = Instant.now();
    List<TuningRecord> previous = TuningLog.read(logFile, line -> System.out.println("  " + line));
    Tuner.Result r =
        Tuner.tune(
            task,
            measurer,
            options,
            previous,
            batch -> TuningLog.append(logFile, records(task, batch)),
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

  private List<TuningRecord> records(TuningTask t, List<Measurement> batch) {
    String now = Instant.now().truncatedTo(ChronoUnit.SECONDS).toString();
    List<TuningRecord> out = new ArrayList<>();
    for (Measurement x : batch) {
      out.add(
          new TuningRecord(
              t.operator(),
              t.target().name(),
              measurer.deviceName(),
              measurer.versions(),
              t.shape(),
              x.config(),
              x.trace(),
              x.status().name(),
              x.medianUs(),
              x.minUs(),
              x.detail(),
              now));
    }
    return out;
  }
}
