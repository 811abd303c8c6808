package dev.kernelgen.measure;

import dev.kernelgen.annotations.Target;
import dev.kernelgen.tune.TuningTask;

/** Tasks of the tests on other targets. */
final class Tasks {
  private Tasks() {}

  /** {@code t} for {@code target}: the same operator, shapes and schedule function. */
  static TuningTask on(TuningTask t, Target target) {
    return new TuningTask(t.operator(), target, t.def(), t.scheduler(), t.kernelName());
  }

  /**
   * A hand-made Java kernel class for {@link Builder#JAVA_CLASS} whose kernel {@code name} of
   * {@code params} pointer parameters runs {@code body}.
   */
  static String javaKernel(String name, int params, String body) {
    StringBuilder ps = new StringBuilder();
    for (int i = 0; i < params; i++) {
      ps.append(i == 0 ? "" : ", ").append("java.lang.foreign.MemorySegment p").append(i);
    }
    return "package dev.kernelgen.tuned;\n"
        + "public final class Kernels {\n"
        + "  public static void "
        + name
        + "("
        + ps
        + ") {\n"
        + body
        + "\n  }\n}\n";
  }
}
