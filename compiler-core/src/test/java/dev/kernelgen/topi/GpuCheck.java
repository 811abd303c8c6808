package dev.kernelgen.topi;

import dev.kernelgen.annotations.Target;
import dev.kernelgen.eval.IRInterpreter;
import dev.kernelgen.eval.NDArray;
import dev.kernelgen.eval.TensorInterpreter;
import dev.kernelgen.lower.IndexWidth;
import dev.kernelgen.lower.Lower;
import dev.kernelgen.schedule.Schedule;
import dev.kernelgen.te.Tensor;
import dev.kernelgen.te.Var;
import dev.kernelgen.testing.Check;
import dev.kernelgen.tir.PrimFunc;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Runs a GPU schedule, lowered for CUDA (or OpenCL), on the loop-IR interpreter (which runs each
 * block's threads concurrently, with barriers and shared memory) and compares it with the oracle.
 */
public final class GpuCheck {
  private GpuCheck() {}

  /** Checks the kernels of both index widths where dims are symbolic, as the driver builds them. */
  public static void check(Schedule s, Map<Var, Long> dims) {
    check(s, s.outputs(), dims);
  }

  /**
   * As above, for a schedule that computes the operator's {@code outputs} (those of its definition,
   * which the oracle evaluates, where the schedule is of a rewritten DAG: {@code
   * Schedule.rewritten}).
   */
  public static void check(Schedule s, List<Tensor> outputs, Map<Var, Long> dims) {
    check(s, outputs, Target.CUDA, dims);
  }

  /** As above, lowered for {@code target} (CUDA or OpenCL): the schedule's own. */
  public static void check(Schedule s, Target target, Map<Var, Long> dims) {
    check(s, s.outputs(), target, dims);
  }

  private static void check(Schedule s, List<Tensor> outputs, Target target, Map<Var, Long> dims) {
    if (!dims.isEmpty()) {
      check(s, outputs, target, dims, IndexWidth.NARROW);
    }
    check(s, outputs, target, dims, IndexWidth.WIDE);
  }

  private static void check(
      Schedule s, List<Tensor> results, Target target, Map<Var, Long> dims, IndexWidth width) {
    List<Tensor> args = new ArrayList<>(s.inputs());
    args.addAll(results);
    Map<Tensor, NDArray> inputs = new LinkedHashMap<>();
    long seed = 3;
    for (Tensor t : s.inputs()) {
      inputs.put(t, NDArray.random(t.dtype(), seed++, Check.shape(t, dims)));
    }
    Map<Tensor, NDArray> expected = TensorInterpreter.evaluate(results, inputs, dims);
    PrimFunc f = Lower.lower(s, "gpu_check", args, target, width, null);
    Map<Tensor, NDArray> outputs = new HashMap<>();
    List<NDArray> buffers = new ArrayList<>();
    for (Tensor t : args) {
      NDArray a = inputs.get(t);
      if (a == null) {
        a = NDArray.zeros(t.dtype(), Check.shape(t, dims));
        for (long k = 0; k < a.size(); k++) {
          a.setDouble(k, Double.NaN);
        }
        outputs.put(t, a);
      }
      buffers.add(a);
    }
    try {
      IRInterpreter.run(f, buffers, dims);
    } catch (RuntimeException | Error e) {
      throw new AssertionError(target + "/" + width + ": the IR interpreter failed on\n" + f, e);
    }
    for (Tensor t : results) {
      String diff = NDArray.compare(expected.get(t), outputs.get(t), 1e-4, 1e-4);
      if (diff != null) {
        throw new AssertionError(
            target + "/" + width + ": output '" + t.name() + "' differs: " + diff + "\n" + f);
      }
    }
  }
}
