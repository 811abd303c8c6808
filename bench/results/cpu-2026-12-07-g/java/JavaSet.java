package dev.kernelgen.bench.gpu;

import dev.kernelgen.annotations.Target;
import dev.kernelgen.autosched.AutoScheduler;
import dev.kernelgen.measure.DeviceMeasurer;
import dev.kernelgen.codegen.NativeToolchain;
import dev.kernelgen.runtime.java.JavaDevice;
import dev.kernelgen.spec.Knobs;
import dev.kernelgen.tune.*;
import java.util.*;

/** JavaSet NAME_SUBSTRING...: Java kernels of new-user ops, pick vs floor. */
public class JavaSet {
  public static void main(String[] a) throws Exception {
    try (DeviceMeasurer m = new DeviceMeasurer(JavaDevice.create(), NativeToolchain.fromEnvironment(), 1)) {
      for (FloorBench.Op op : NewUserOps.all()) {
        if (Arrays.stream(a).noneMatch(op.name()::contains)) continue;
        var outs = op.def().outputs();
        TuningTask t = new TuningTask("x/" + op.name(), Target.JAVA, op.def(), k -> op.pick().apply(Target.JAVA), "k");
        // the pick: the op's own schedule; the floor: the naive sketch
        TuningTask f = new TuningTask("x/" + op.name() + "_floor", Target.JAVA, op.def(), k -> AutoScheduler.generate(Target.JAVA, outs, Knobs.configured(Map.of(AutoScheduler.SKETCH, AutoScheduler.NAIVE))), "k");
        for (int r = 0; r < 4; r++) {
          var mf = m.measure(f, List.of(Configuration.of(Map.of()))).get(0);
          var mp = m.measure(t, List.of(Configuration.of(Map.of()))).get(0);
          System.out.printf("%-40s floor %9.1f (%s) pick %9.1f (%s)%n", op.name(), mf.medianUs(), mf.status(), mp.medianUs(), mp.status());
        }
      }
    }
  }
}
