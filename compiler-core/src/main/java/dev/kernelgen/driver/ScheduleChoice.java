package dev.kernelgen.driver;

import static dev.kernelgen.driver.KernelDriver.context;

import dev.kernelgen.annotations.Target;
import dev.kernelgen.autosched.AutoScheduler;
import dev.kernelgen.autosched.VectorUnit;
import dev.kernelgen.diag.CompilerBug;
import dev.kernelgen.diag.UserError;
import dev.kernelgen.driver.SpecReader.LibrarySpec;
import dev.kernelgen.driver.SpecReader.OperatorSpec;
import dev.kernelgen.lower.IndexWidth;
import dev.kernelgen.lower.Lower;
import dev.kernelgen.schedule.Schedule;
import dev.kernelgen.spec.Knobs;
import dev.kernelgen.spec.OperatorDef;
import dev.kernelgen.tir.PrimFunc;
import dev.kernelgen.topi.DefaultSchedules;
import dev.kernelgen.tune.TuningLog;
import dev.kernelgen.tune.TuningRecord;
import dev.kernelgen.tune.TuningTask;
import java.lang.reflect.Method;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;

/**
 * Chooses the schedule of each operator variant and target of one library: the request's
 * configuration if it names one, else the best tuning record for the target (for C, also one per
 * ISA level, which replaces the function in that level's library), else the spec's knobs' defaults;
 * and keeps the list of builds that fell back to defaults although records were given.
 */
final class ScheduleChoice {
  private final GenerateRequest request;
  private final LibrarySpec lib;

  /** The builds that fell back to default schedules, and why. */
  final List<String> fallbacks = new ArrayList<>();

  /** C: per ISA level, the functions (by index into the C functions) tuned at that level. */
  final Map<String, Map<Integer, PrimFunc>> cByIsaLevel = new TreeMap<>();

  ScheduleChoice(GenerateRequest request, LibrarySpec lib) {
    this.request = request;
    this.lib = lib;
  }

  /**
   * A variant's schedule, its knobs, where they came from ({@code configured}, {@code tuned},
   * {@code default}) and, for C without a record for every level, why it fell back (or null).
   */
  record Chosen(Schedule schedule, Knobs knobs, String source, String cFallback) {}

  /**
   * The schedule of operator {@code op}'s variant {@code def} for {@code target} by spec method
   * {@code m} (null: the default schedule), with the {@code configured} knobs if not null.
   */
  Chosen choose(
      OperatorSpec op,
      Method m,
      OperatorDef def,
      Target target,
      Map<String, Integer> configured,
      String what,
      String where) {
    String source = configured != null ? "configured" : "default";
    Knobs knobs = null;
    Schedule s = null;
    String cFallback = null;
    if (configured == null) {
      Tuned tuned = tuned(op, def, target);
      if (tuned.record != null) {
        // A record the schedule no longer accepts (its knobs changed) is stale: defaults then.
        try {
          Knobs k = Knobs.configured(tuned.record.config().values());
          Schedule ts = schedule(op, m, def, target, k, where);
          if (k.unused().isEmpty()) {
            knobs = k;
            s = ts;
            source = "tuned";
            request
                .log()
                .accept(
                    "  "
                        + what
                        + ": tuned configuration "
                        + tuned.record.config()
                        + String.format(
                            Locale.ROOT,
                            " (%.2f us median on %s)",
                            tuned.record.medianUs(),
                            tuned.record.device()));
          } else {
            tuned =
                new Tuned(
                    null,
                    "its record sets knobs " + k.unused() + " that the schedule does not ask for");
          }
        } catch (UserError e) {
          tuned = new Tuned(null, "its record is stale: " + e.getMessage());
        }
      }
      // Java kernels are not tuned (kernels:tune measures native targets only); C records by
      // ISA level are looked at below.
      if (s == null
          && target != Target.JAVA
          && target != Target.C
          && !fallbacks.contains(what + ": " + tuned.reason)) {
        fallbacks.add(what + ": " + tuned.reason);
      }
      if (s == null && target == Target.C) {
        cFallback = what + ": " + tuned.reason;
      }
    }
    if (s == null) {
      knobs = configured == null ? Knobs.defaults() : Knobs.configured(configured);
      s = schedule(op, m, def, target, knobs, where);
    }
    if (s == null) {
      throw new CompilerBug("no schedule for " + where);
    }
    return new Chosen(s, knobs, source, cFallback);
  }

  /**
   * C: after the per-level lookup, records why the levels left {@code untuned} fell back, given the
   * variant's fallback {@code cFallback} (null: it was tuned for every level).
   */
  void noteCFallback(String what, String cFallback, List<String> untuned) {
    if (cFallback != null) {
      if (untuned.size() == request.toolchain().isaLevels().size()) {
        if (!fallbacks.contains(cFallback)) {
          fallbacks.add(cFallback);
        }
      } else {
        for (String l : untuned) {
          String line = what + " at " + l + ": no record at this level";
          if (!fallbacks.contains(line)) {
            fallbacks.add(line);
          }
        }
      }
    }
  }

  /**
   * C: the tuning records measured at each ISA level replace, in that level's library, the function
   * at {@code index} of the C functions; a level without records keeps it (the default schedule, or
   * a record that names no level).
   *
   * @param tunedOut receives each tuned level's configuration
   * @return the levels left without a tuned function
   */
  List<String> tunedPerIsaLevel(
      OperatorSpec op,
      Method m,
      OperatorDef def,
      String fn,
      IndexWidth width,
      String what,
      String where,
      int index,
      Map<String, Map<String, Integer>> tunedOut) {
    List<String> untuned = new ArrayList<>();
    for (String level : request.toolchain().isaLevels()) {
      Tuned t = tuned(op, def, Target.C, level);
      if (t.record == null) {
        if (t.ambiguous) {
          // Records exist but cannot be chosen (several devices): say so, not only "untuned".
          fallbacks.add(what + " at " + level + ": " + t.reason);
        }
        untuned.add(level);
        continue;
      }
      try {
        Knobs k = Knobs.configured(t.record.config().values());
        Schedule ts = schedule(op, m, def, Target.C, k, where);
        if (!k.unused().isEmpty()) {
          fallbacks.add(what + " at " + level + ": its record sets knobs " + k.unused());
          untuned.add(level);
          continue;
        }
        ownFunction(level, index, ts, fn, def, width, where);
        tunedOut.put(level, t.record.config().values());
        request
            .log()
            .accept(
                "  "
                    + what
                    + " at "
                    + level
                    + ": tuned configuration "
                    + t.record.config()
                    + String.format(
                        Locale.ROOT,
                        " (%.2f us median on %s)",
                        t.record.medianUs(),
                        t.record.device()));
      } catch (UserError e) {
        fallbacks.add(what + " at " + level + ": its record is stale: " + e.getMessage());
        untuned.add(level);
      }
    }
    return untuned;
  }

  /**
   * C: each of the {@code levels} left untuned gets, in its own library, the default schedule for
   * its {@link VectorUnit} ({@link DefaultSchedules#forTarget(Target, VectorUnit, OperatorDef,
   * Knobs)}) where that differs from {@code chosen}, AVX-512's, which the other levels share: a
   * generated schedule's register and vector tiles are not the same on AVX2's 16 registers of 8
   * floats as on AVX-512's 32 of 16, and the matmul template's are AVX-512's. Schedule methods and
   * records keep one schedule for every level.
   */
  void untunedPerIsaLevel(
      Method m,
      OperatorDef def,
      String fn,
      IndexWidth width,
      String what,
      String where,
      int index,
      Chosen chosen,
      List<String> levels) {
    if (m != null || !chosen.source().equals("default") || chosen.knobs().isConfigured()) {
      return;
    }
    for (String level : levels) {
      VectorUnit unit = units.computeIfAbsent(level, this::unitOf);
      if (unit.equals(VectorUnit.AVX512)) {
        continue;
      }
      Knobs k = Knobs.defaults();
      Schedule s = context(where, () -> DefaultSchedules.forTarget(Target.C, unit, def, k));
      if (k.chosen().equals(chosen.knobs().chosen())) {
        continue;
      }
      ownFunction(level, index, s, fn, def, width, where);
      request
          .log()
          .accept(
              "  " + what + " at " + level + ": default schedule for " + unit + " (" + fn + ")");
    }
  }

  /** Level {@code level}'s library computes C function {@code index} by schedule {@code s}. */
  private void ownFunction(
      String level,
      int index,
      Schedule s,
      String fn,
      OperatorDef def,
      IndexWidth width,
      String where) {
    PrimFunc f = context(where, () -> Lower.lower(s, fn, def.args(), Target.C, width, null));
    cByIsaLevel.computeIfAbsent(level, x -> new TreeMap<>()).put(index, f);
  }

  /** Each ISA level's vector unit, {@code native} resolved once (it runs the C compiler). */
  private final Map<String, VectorUnit> units = new java.util.HashMap<>();

  private VectorUnit unitOf(String level) {
    return VectorUnit.ofIsaLevel(
        level.equals("native") ? request.toolchain().nativeIsaLevel() : level);
  }

  static Schedule schedule(
      OperatorSpec op, Method m, OperatorDef def, Target target, Knobs knobs, String where) {
    if (m == null) {
      return context(where, () -> DefaultSchedules.forTarget(target, def, knobs));
    }
    if (DefaultSchedules.generatedConfiguration(knobs)) {
      // A record of the generated schedules, which kernels:tune races against the method's.
      return context(where, () -> AutoScheduler.schedule(target, def.outputs(), knobs));
    }
    if (m.getReturnType() == Schedule.class) {
      Schedule s = (Schedule) SpecReader.call(op.source(), m, def, knobs);
      UserError.check(s != null, "%s returned null instead of a Schedule", where);
      return s;
    }
    Schedule s = Schedule.create(def.outputs());
    SpecReader.call(op.source(), m, s, def, knobs);
    return s;
  }

  /**
   * The best tuning record of an operator variant, or why there is none ({@code ambiguous}: records
   * of several devices).
   */
  private record Tuned(TuningRecord record, String reason, boolean ambiguous) {
    Tuned(TuningRecord record, String reason) {
      this(record, reason, false);
    }
  }

  private Tuned tuned(OperatorSpec op, OperatorDef def, Target target) {
    return tuned(op, def, target, null);
  }

  /**
   * As above; for C, only the records measured at ISA level {@code isa} (null: the records that
   * name no level, which serve every level).
   */
  private Tuned tuned(OperatorSpec op, OperatorDef def, Target target, String isa) {
    List<List<Long>> shape = TuningTask.shapeOf(def);
    if (shape == null) {
      return new Tuned(null, "its shape has symbolic dims (tuning needs a specialization)");
    }
    List<TuningRecord> records =
        target != Target.C
            ? request.tuning()
            : request.tuning().stream()
                .filter(r -> java.util.Objects.equals(r.versions().get("isa"), isa))
                .toList();
    TuningLog.Lookup l =
        TuningLog.best(
            records,
            lib.name() + "/" + op.name(),
            target.name(),
            shape,
            request.tuningDevices().get(target));
    return new Tuned(l.best().orElse(null), l.reason(), l.ambiguous());
  }
}
