package dev.kernelgen.lower;

import dev.kernelgen.annotations.Target;
import dev.kernelgen.arith.Simplifier;
import dev.kernelgen.codegen.KernelStatus;
import dev.kernelgen.codegen.LaunchGeometry;
import dev.kernelgen.diag.UserError;
import dev.kernelgen.schedule.Schedule;
import dev.kernelgen.schedule.Stage;
import dev.kernelgen.te.Buffer;
import dev.kernelgen.te.Expr;
import dev.kernelgen.te.FreeVars;
import dev.kernelgen.te.MemoryScope;
import dev.kernelgen.te.Tensor;
import dev.kernelgen.te.Var;
import dev.kernelgen.tir.PrimFunc;
import dev.kernelgen.tir.Stmt;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Consumer;
import java.util.function.UnaryOperator;

/**
 * Lowers a schedule to a {@link LoweredModule} ({@link #lowerModule}), or to its one {@link
 * PrimFunc} ({@link #lower}). The whole compiler on one screen:
 *
 * <ol>
 *   <li>inline the stages marked compute_inline ({@link StageGraph#inline});
 *   <li>infer the bounds of every loop ({@link InferBounds});
 *   <li>build the loop nests and attach stages ({@link ScheduleOps});
 *   <li>then the passes of {@link #passes}: flatten storage, inject virtual threads, unroll, expand
 *       powers by constant quarters ({@link ExpandPow}), simplify, on C order a window's unrolled
 *       multiply-adds by the vector they load ({@link GroupSharedLoads}), on C split vectorized
 *       loops over flattened indices ({@link SplitDivModLoops}) and decide invariant case selects
 *       before their loops ({@link UnswitchCases}), on CPUs partition loops around their boundary
 *       tests, fold guards into loop bounds, on C version full tiles ({@link VersionFullTiles}) and
 *       run a short vector loop's remainder as one overlapping vector ({@link OverlapVectorTail}),
 *       and for GPU targets insert barriers;
 *   <li>for GPU targets, split host from device ({@link SplitHostDevice}: one kernel per root
 *       stage, temporaries between them), give kernels that gather or divide by data a status
 *       buffer ({@link KernelStatus}) and compute each kernel's {@link LaunchGeometry}.
 * </ol>
 */
public final class Lower {
  private Lower() {}

  /** One pass over the loop IR, with a stable name for dumps and tests. */
  public record Pass(String name, UnaryOperator<Stmt> fn) {}

  /**
   * Lowers {@code schedule} to the module of kernels {@code name} over {@code args} (the operator's
   * inputs and outputs, in the order the caller passes them), with index arithmetic of {@code
   * width} where extents are symbolic: what the code generators print and the launcher calls.
   *
   * @param dump receives the IR after each step that changed it (or null)
   */
  public static LoweredModule lowerModule(
      Schedule schedule,
      String name,
      List<Tensor> args,
      Target target,
      IndexWidth width,
      Consumer<String> dump) {
    PrimFunc f = lower(schedule, name, args, target, width, dump);
    if (target != Target.CUDA && target != Target.OPENCL) {
      return new LoweredModule(target, f, List.of(new LoweredModule.Kernel(f, null)), List.of());
    }
    SplitHostDevice.DeviceModule dm = SplitHostDevice.split(f);
    List<LoweredModule.Temporary> temps = new ArrayList<>();
    for (int k = 0; k < dm.temporaries().size(); k++) {
      temps.add(new LoweredModule.Temporary(dm.temporaries().get(k), dm.temporarySizes().get(k)));
    }
    // Kernels that gather at an index read from memory, or divide by a value read from it, check
    // and report to one status word, a temporary the launcher reads after them (KernelStatus).
    Buffer status = KernelStatus.statusBuffer();
    List<LoweredModule.Kernel> kernels = new ArrayList<>();
    for (PrimFunc kf : dm.kernels()) {
      PrimFunc checked = KernelStatus.withStatus(kf, status);
      kernels.add(new LoweredModule.Kernel(checked, LaunchGeometry.of(checked)));
    }
    if (kernels.stream().anyMatch(k -> k.func().params().contains(status))) {
      temps.add(new LoweredModule.Temporary(status, dev.kernelgen.te.IntImm.of(1)));
    }
    return new LoweredModule(target, f, kernels, temps);
  }

  /**
   * Lowers {@code schedule} to a function {@code name} whose buffer parameters are {@code args}
   * (the operator's inputs and outputs, in the order the caller passes them).
   *
   * @param dump receives the IR after each step that changed it (or null)
   */
  public static PrimFunc lower(
      Schedule schedule, String name, List<Tensor> args, Target target, Consumer<String> dump) {
    return lower(schedule, name, args, target, IndexWidth.WIDE, dump);
  }

  /**
   * Lowers with index arithmetic of {@code width} where extents are symbolic ({@link IndexWidth}):
   * the driver builds a generic operator both ways, and the launcher picks one by the element
   * counts of the launch.
   */
  public static PrimFunc lower(
      Schedule schedule,
      String name,
      List<Tensor> args,
      Target target,
      IndexWidth width,
      Consumer<String> dump) {
    Map<Tensor, Buffer> params = params(schedule, args);
    for (Stage st : schedule.stages()) {
      dev.kernelgen.schedule.CrossThread.checkPlacement(
          st, target == Target.CUDA || target == Target.OPENCL, target.toString());
    }
    StageGraph graph = StageGraph.inline(schedule);
    InferBounds.Bounds bounds = InferBounds.run(graph, width);
    Stmt body = ScheduleOps.run(graph, bounds);
    if (dump != null) {
      dump.accept("after schedule_ops:\n" + body.show());
    }
    for (Pass p : passes(target, params, storageLayouts(schedule), width)) {
      Stmt next = p.fn().apply(body);
      if (dump != null && next != body) {
        dump.accept("after " + p.name() + ":\n" + next.show());
      }
      body = next;
    }
    return new PrimFunc(name, List.copyOf(params.values()), scalars(args), body);
  }

  /** Lowers with the default parameters: the schedule's inputs, then its outputs. */
  public static PrimFunc lower(Schedule schedule, String name, Target target) {
    List<Tensor> args = new ArrayList<>(schedule.inputs());
    args.addAll(schedule.outputs());
    return lower(schedule, name, args, target, null);
  }

  /**
   * The buffers not laid out dense and row-major ({@code reorder_storage}, {@code storage_align}).
   */
  private static Map<Tensor, StorageLayout> storageLayouts(Schedule schedule) {
    Map<Tensor, StorageLayout> out = new HashMap<>();
    for (Stage st : schedule.stages()) {
      StorageLayout l = StorageLayout.of(st);
      if (l != null) {
        out.put(st.tensor(), l);
      }
    }
    return out;
  }

  /**
   * The passes after loop-nest construction, in order; {@code storageLayouts} gives the layout of
   * the buffers that a schedule laid out other than dense and row-major.
   */
  public static List<Pass> passes(
      Target target, Map<Tensor, Buffer> params, Map<Tensor, StorageLayout> storageLayouts) {
    return passes(target, params, storageLayouts, IndexWidth.WIDE);
  }

  /** The passes after loop-nest construction, flattening storage for index {@code width}. */
  public static List<Pass> passes(
      Target target,
      Map<Tensor, Buffer> params,
      Map<Tensor, StorageLayout> storageLayouts,
      IndexWidth width) {
    List<Pass> out = new ArrayList<>();
    out.add(new Pass("storage_flatten", s -> StorageFlatten.run(s, params, storageLayouts, width)));
    out.add(new Pass("inject_virtual_thread", InjectVirtualThread::run));
    out.add(new Pass("unroll_loops", UnrollLoops::run));
    out.add(new Pass("expand_pow", ExpandPow::run));
    out.add(new Pass("simplify", Simplifier::simplify));
    if (target == Target.C) {
      out.add(new Pass("split_div_mod_loops", SplitDivModLoops::run));
      out.add(new Pass("unswitch_cases", UnswitchCases::run));
      out.add(new Pass("coalesce_pitched_rows", CoalescePitchedRows::run));
      out.add(new Pass("group_shared_loads", GroupSharedLoads::run));
    }
    if (target == Target.C || target == Target.JAVA) {
      out.add(new Pass("hoist_invariants", HoistInvariants::run));
      out.add(new Pass("partition_loops", PartitionLoops::run));
    }
    if (target == Target.C) {
      out.add(new Pass("next_row_reduction", NextRowReduction::run));
      out.add(new Pass("prefetch_next_row", PrefetchNextRow::run));
    }
    out.add(new Pass("tighten_loop_bounds", TightenLoopBounds::run));
    if (target == Target.C) {
      out.add(new Pass("version_full_tiles", VersionFullTiles::run));
      out.add(new Pass("overlap_vector_tail", OverlapVectorTail::run));
    }
    boolean gpu = target == Target.CUDA || target == Target.OPENCL;
    if (gpu) {
      out.add(new Pass("insert_barriers", InsertBarriers::run));
    }
    out.add(new Pass("inject_double_buffer", s -> InjectDoubleBuffer.run(s, gpu)));
    return out;
  }

  private static Map<Tensor, Buffer> params(Schedule schedule, List<Tensor> args) {
    Set<Tensor> needed = new LinkedHashSet<>(schedule.inputs());
    needed.addAll(schedule.outputs());
    Map<Tensor, Buffer> params = new LinkedHashMap<>();
    Set<String> names = new HashSet<>();
    for (Tensor arg : args) {
      // The tensor that computes the argument: another one where the DAG was rewritten.
      Tensor t = schedule.computed(arg);
      UserError.check(
          needed.contains(t),
          "argument '%s' is neither an input nor an output of the operator (inputs: %s, outputs:"
              + " %s)",
          arg.name(),
          schedule.inputs(),
          schedule.outputs());
      UserError.check(params.put(t, null) == null, "argument '%s' is listed twice", arg.name());
      UserError.check(names.add(arg.name()), "two arguments are named '%s'", arg.name());
      params.put(t, new Buffer(arg.name(), t.dtype(), MemoryScope.GLOBAL, t.shape()));
    }
    for (Tensor t : needed) {
      UserError.check(
          params.containsKey(t),
          "'%s' is %s of the operator but not among its arguments %s",
          t.name(),
          schedule.outputs().contains(t) ? "an output" : "an input",
          args);
    }
    return params;
  }

  /** The symbolic dims of the arguments' shapes, in order of first appearance. */
  private static List<Var> scalars(List<Tensor> args) {
    Set<Var> vars = new LinkedHashSet<>();
    for (Tensor t : args) {
      for (Expr d : t.shape()) {
        vars.addAll(FreeVars.of(d));
      }
    }
    return List.copyOf(vars);
  }
}
