package dev.kernelgen.tune;

import dev.kernelgen.annotations.Target;
import dev.kernelgen.diag.UserError;
import dev.kernelgen.lower.Lower;
import dev.kernelgen.schedule.Schedule;
import dev.kernelgen.spec.Knobs;
import dev.kernelgen.spec.OperatorDef;
import dev.kernelgen.te.Expr;
import dev.kernelgen.te.IntImm;
import dev.kernelgen.te.Tensor;
import dev.kernelgen.tir.PrimFunc;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.function.Function;

/**
 * One thing to tune: an operator of fixed shape for one target, with the schedule function whose
 * knobs span the configuration space.
 *
 * @param operator {@code library/operator}, as the tuning log and the driver name it
 * @param def the operator, every dim of its arguments a constant
 * @param scheduler builds the schedule for given knobs (the spec's {@code @ScheduleFor} method or
 *     the default schedule)
 * @param kernelName the name of the lowered function
 */
public record TuningTask(
    String operator,
    Target target,
    OperatorDef def,
    Function<Knobs, Schedule> scheduler,
    String kernelName) {

  public TuningTask {
    Objects.requireNonNull(operator, "operator");
    Objects.requireNonNull(target, "target");
    Objects.requireNonNull(scheduler, "scheduler");
    UserError.check(
        def.dims().isEmpty(),
        "operator '%s' has symbolic dims %s: declare a specialization that fixes them to tune it",
        operator,
        def.dims());
  }

  /** The shape of each argument (inputs, then outputs): what the log matches records by. */
  public List<List<Long>> shape() {
    return shapeOf(def);
  }

  /** The argument shapes of an operator whose dims are all constants; null when some are not. */
  public static List<List<Long>> shapeOf(OperatorDef def) {
    List<List<Long>> out = new ArrayList<>();
    for (Tensor t : def.args()) {
      List<Long> dims = new ArrayList<>();
      for (Expr e : t.shape()) {
        if (!(e instanceof IntImm i)) {
          return null;
        }
        dims.add(i.value());
      }
      out.add(List.copyOf(dims));
    }
    return List.copyOf(out);
  }

  /** The space the schedule's knobs span, found by running it once with its defaults. */
  public ConfigSpace space() {
    Knobs k = Knobs.defaults();
    scheduler.apply(k);
    return new ConfigSpace(k.space());
  }

  /** The schedule for {@code c}. */
  public Schedule schedule(Configuration c) {
    return scheduler.apply(Knobs.configured(c.values()));
  }

  /**
   * The knobs {@code c}'s schedule reads, with their values: two configurations with the same read
   * knobs build the same schedule (a sketch that ignores another sketch's knobs), since the
   * scheduler is a function of the knobs it asks for.
   */
  public Configuration readKnobs(Configuration c) {
    Knobs k = Knobs.configured(c.values());
    scheduler.apply(k);
    return Configuration.of(k.chosen());
  }

  /** The schedule for {@code c}, lowered. */
  public PrimFunc lower(Schedule s) {
    return Lower.lower(s, kernelName, def.args(), target, null);
  }

  /** The trace of a schedule as the log keeps it, one primitive per line. */
  public static List<String> trace(Schedule s) {
    return s.trace().steps().stream().map(Object::toString).toList();
  }

  /** Elements of the argument {@code i}. */
  public long elements(int i) {
    long n = 1;
    for (long d : shape().get(i)) {
      n *= d;
    }
    return n;
  }
}
