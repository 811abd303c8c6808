package dev.kernelgen.driver;

import static dev.kernelgen.driver.KernelDriver.WIDE_SUFFIX;
import static dev.kernelgen.driver.KernelDriver.context;

import dev.kernelgen.annotations.Target;
import dev.kernelgen.autosched.AutoScheduler;
import dev.kernelgen.codegen.InOrder;
import dev.kernelgen.codegen.JavaCodegen;
import dev.kernelgen.diag.UserError;
import dev.kernelgen.driver.LibraryModel.Build;
import dev.kernelgen.driver.LibraryModel.Kernel;
import dev.kernelgen.driver.LibraryModel.Temporary;
import dev.kernelgen.driver.LibraryModel.Variant;
import dev.kernelgen.driver.SpecReader.LibrarySpec;
import dev.kernelgen.driver.SpecReader.OperatorSpec;
import dev.kernelgen.json.Json;
import dev.kernelgen.lower.IndexWidth;
import dev.kernelgen.lower.Lower;
import dev.kernelgen.lower.LoweredModule;
import dev.kernelgen.schedule.Schedule;
import dev.kernelgen.spec.Knobs;
import dev.kernelgen.spec.OperatorDef;
import dev.kernelgen.te.Tensor;
import dev.kernelgen.te.Var;
import dev.kernelgen.tir.PrimFunc;
import dev.kernelgen.topi.DefaultSchedules;
import dev.kernelgen.tune.TuningTask;
import java.lang.reflect.Method;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.function.Function;

/**
 * The build of one library: each operator's variants (specializations, and for symbolic dims 32-bit
 * and 64-bit index kernels) scheduled ({@link ScheduleChoice}) and lowered for every target, the
 * modules emitted ({@link ModuleEmitter}), the manifest written ({@link Manifest}); or the
 * library's tuning tasks.
 */
final class LibraryBuild {
  /** Emits and compiles the modules of the targets at once (tool processes, mostly). */
  private static final ExecutorService EMITS =
      Executors.newCachedThreadPool(
          Thread.ofPlatform().daemon().name("kernelgen-emit-", 0).factory());

  private final GenerateRequest request;
  private final UserErrors errors;
  private final LibrarySpec lib;
  private final Path dir;

  private final List<Target> targets;
  private final Map<Target, List<PrimFunc>> funcs = new EnumMap<>(Target.class);
  private final ScheduleChoice choice;
  private final ModuleEmitter emitter;

  LibraryBuild(GenerateRequest request, UserErrors errors, LibrarySpec lib, Path root) {
    this.request = request;
    this.errors = errors;
    this.lib = lib;
    this.choice = new ScheduleChoice(request, lib);
    this.dir = root.resolve(KernelDriver.resourceDir(lib.name()));
    this.emitter = new ModuleEmitter(request, lib.name(), dir, choice.cByIsaLevel);
    this.targets =
        lib.targets().stream()
            .filter(t -> request.targets().isEmpty() || request.targets().contains(t))
            .toList();
    UserError.check(
        !targets.isEmpty(),
        "%s: library '%s' targets %s, none of which is among the configured targets %s",
        lib.source().displayName(),
        lib.name(),
        lib.targets(),
        request.targets());
  }

  /**
   * The tuning tasks of every operator variant of fixed shape and native target; with {@code
   * raceGenerated}, also the generated schedules' space where a schedule method or a template
   * decides.
   */
  List<TuningTask> tasks(boolean raceGenerated) {
    List<TuningTask> out = new ArrayList<>();
    for (OperatorSpec op : lib.operators()) {
      String where = SpecReader.where(op.source(), op.method());
      Object r = SpecReader.call(op.source(), op.method());
      UserError.check(r != null, "%s returned null instead of an OperatorDef", where);
      OperatorDef def = (OperatorDef) r;
      Map<String, Var> byName = new LinkedHashMap<>();
      def.dims().forEach(v -> byName.put(v.name(), v));
      List<Map<Var, Long>> specs = new ArrayList<>();
      specs.add(Map.of());
      for (String sp : op.specializations()) {
        specs.add(Variants.parseSpecialization(where, sp, byName));
      }
      for (Map<Var, Long> spec : specs) {
        OperatorDef vdef = spec.isEmpty() ? def : Specializer.specialize(def, spec);
        String fn = op.name() + Variants.suffix(spec);
        if (TuningTask.shapeOf(vdef) == null) {
          request
              .log()
              .accept(
                  "skipping "
                      + lib.name()
                      + "/"
                      + fn
                      + ": its shape has symbolic dims "
                      + vdef.dims()
                      + " (declare a specialization to tune it)");
          continue;
        }
        for (Target t : targets) {
          if (t == Target.JAVA) {
            continue;
          }
          Method m = op.schedules().get(t);
          String w = where + " (" + fn + " for " + t + ")";
          out.add(
              new TuningTask(
                  lib.name() + "/" + op.name(),
                  t,
                  vdef,
                  knobs -> ScheduleChoice.schedule(op, m, vdef, t, knobs, w),
                  fn));
          // Where a schedule method or a library template decides, the generated schedules race
          // it: a second task of the same operator over the auto-scheduler's space (its records
          // set knob "sketch", which routes them to the generated schedule); generate embeds the
          // fastest record of either.
          if (raceGenerated && (m != null || DefaultSchedules.usesTemplate(t, vdef))) {
            out.add(
                new TuningTask(
                    lib.name() + "/" + op.name(),
                    t,
                    vdef,
                    knobs ->
                        context(
                            w + ", generated",
                            () -> AutoScheduler.generate(t, vdef.outputs(), knobs)),
                    fn));
          }
        }
      }
    }
    return out;
  }

  LibraryModel build() {
    checkToolchain();
    List<LibraryModel.Operator> ops = new ArrayList<>();
    int errorsBefore = errors.size();
    for (OperatorSpec op : lib.operators()) {
      // Each operator's mistakes are collected, and the next operator built all the same.
      LibraryModel.Operator o =
          errors.collect(SpecReader.where(op.source(), op.method()), () -> operator(op));
      if (o != null) {
        ops.add(o);
      }
    }
    if (errors.size() > errorsBefore) {
      return null;
    }
    if (request.tuning().isEmpty()) {
      request.log().accept("library " + lib.name() + ": no tuning records, default configurations");
    } else if (!choice.fallbacks.isEmpty()) {
      request
          .log()
          .accept(
              "library "
                  + lib.name()
                  + ": "
                  + choice.fallbacks.size()
                  + " build(s) fell back to default schedules:\n  "
                  + String.join("\n  ", choice.fallbacks));
    }
    Map<Target, LibraryModel.Module> modules = new EnumMap<>(Target.class);
    String javaClass = null;
    String javaSource = null;
    Map<String, Object> moduleJson = new LinkedHashMap<>();
    Map<Target, Map<String, Object>> jsonByTarget = new EnumMap<>(Target.class);
    targets.forEach(t -> jsonByTarget.put(t, new LinkedHashMap<>()));
    Map<Target, LibraryModel.Module> emitted =
        emitConcurrently(
            targets,
            t -> {
              Map<String, Object> json = jsonByTarget.get(t);
              List<PrimFunc> fs = funcs.getOrDefault(t, List.of());
              return context(
                  "library '" + lib.name() + "', target " + t, () -> emitter.emit(t, fs, json));
            });
    for (Target t : targets) {
      List<PrimFunc> fs = funcs.getOrDefault(t, List.of());
      Map<String, Object> json = jsonByTarget.get(t);
      modules.put(t, emitted.get(t));
      moduleJson.put(t.name(), json);
      if (t == Target.JAVA) {
        javaClass = lib.name() + "Java";
        javaSource = JavaCodegen.generate(fs, lib.source().type().getPackageName(), javaClass);
        json.put("class", lib.source().type().getPackageName() + "." + javaClass);
        json.put("sourceSha256", DriverFiles.sha256(javaSource.getBytes(StandardCharsets.UTF_8)));
      }
    }
    LibraryModel model =
        new LibraryModel(
            lib.name(),
            lib.source().type().getPackageName(),
            lib.source().type().getName(),
            targets,
            KernelDriver.resourceDir(lib.name()),
            modules,
            ops,
            javaClass,
            javaSource);
    DriverFiles.writeString(
        dir.resolve("manifest.json"), Json.pretty(Manifest.manifest(model, moduleJson)));
    request.log().accept(Manifest.summary(model));
    return model;
  }

  private void checkToolchain() {
    String hint = "library '" + lib.name() + "' (" + lib.source().displayName() + ") targets %s";
    if (targets.contains(Target.C)) {
      context(hint.formatted(Target.C), () -> request.toolchain().cc());
    }
    if (targets.contains(Target.CUDA)) {
      context(hint.formatted(Target.CUDA), () -> request.toolchain().nvcc());
    }
  }

  private LibraryModel.Operator operator(OperatorSpec op) {
    String where = SpecReader.where(op.source(), op.method());
    Object r = SpecReader.call(op.source(), op.method());
    UserError.check(r != null, "%s returned null instead of an OperatorDef", where);
    OperatorDef def = (OperatorDef) r;
    List<Var> dims = def.dims();
    Map<String, Var> byName = new LinkedHashMap<>();
    for (Var v : dims) {
      UserError.check(
          v.name().matches("[a-z][A-Za-z0-9_]*"),
          "%s: dim '%s' must be a lower-case Java identifier (it names a launcher variable)",
          where,
          v.name());
      UserError.check(
          byName.put(v.name(), v) == null,
          "%s: two different dims are named '%s'",
          where,
          v.name());
    }
    for (Tensor t : def.args()) {
      UserError.check(
          t.name().matches("[A-Za-z_][A-Za-z0-9_]*"),
          "%s: argument '%s' must be named like a Java identifier",
          where,
          t.name());
    }
    List<Map<Var, Long>> specializations = new ArrayList<>();
    specializations.add(Map.of());
    for (String s : op.specializations()) {
      specializations.add(Variants.parseSpecialization(where, s, byName));
    }
    List<Variant> variants = new ArrayList<>();
    List<String> names = new ArrayList<>();
    Map<String, String> wideNames = new LinkedHashMap<>();
    for (Map<Var, Long> spec : specializations) {
      OperatorDef vdef = spec.isEmpty() ? def : Specializer.specialize(def, spec);
      String fn = op.name() + Variants.suffix(spec);
      UserError.check(!names.contains(fn), "%s: specialization %s is listed twice", where, spec);
      UserError.check(
          !wideNames.containsKey(fn),
          "%s: specialization %s names its kernels '%s', the name of the 64-bit index kernels of"
              + " '%s'",
          where,
          spec,
          fn,
          wideNames.get(fn));
      names.add(fn);
      Map<Target, Build> builds = new EnumMap<>(Target.class);
      Map<Target, Build> wide = new EnumMap<>(Target.class);
      // Symbolic dims: 32-bit index kernels, and 64-bit ones for launches past their reach.
      boolean symbolic = !vdef.dims().isEmpty();
      if (symbolic) {
        UserError.check(
            !names.contains(fn + WIDE_SUFFIX),
            "%s: kernels '%s' (64-bit indices of '%s') clash with a specialization's name",
            where,
            fn + WIDE_SUFFIX,
            fn);
        wideNames.put(fn + WIDE_SUFFIX, fn);
      }
      for (Target t : targets) {
        IndexWidth w = symbolic ? IndexWidth.NARROW : IndexWidth.WIDE;
        builds.put(t, build(op, vdef, spec, fn, t, w));
        if (symbolic) {
          wide.put(t, build(op, vdef, spec, fn + WIDE_SUFFIX, t, IndexWidth.WIDE));
        }
      }
      Map<String, Long> named = new LinkedHashMap<>();
      for (Var v : dims) {
        if (spec.containsKey(v)) {
          named.put(v.name(), spec.get(v));
        }
      }
      List<Temporary> intermediates =
          symbolic ? OperatorModel.intermediates(funcs, fn, dims) : List.of();
      variants.add(new Variant(named, builds, wide, intermediates));
    }
    return new LibraryModel.Operator(
        op.name(),
        op.method().getName(),
        OperatorModel.expressions(def),
        OperatorModel.arguments(def.inputs()),
        OperatorModel.arguments(def.outputs()),
        dims.stream().map(Var::name).toList(),
        variants,
        ReadRequirements.of(def));
  }

  private Build build(
      OperatorSpec op,
      OperatorDef def,
      Map<Var, Long> spec,
      String fn,
      Target target,
      IndexWidth width) {
    String key = lib.name() + "/" + op.name() + "/" + target + Variants.specKey(spec);
    Map<String, Integer> configured = request.configurations().get(key);
    Method m = op.schedules().get(target);
    String what =
        "operator '"
            + op.name()
            + "' for "
            + target
            + (spec.isEmpty() ? "" : " specialized to " + Variants.specKey(spec).substring(1));
    String where =
        m != null
            ? SpecReader.where(op.source(), m) + " (" + what + ")"
            : SpecReader.where(op.source(), op.method()) + " (" + what + ", default schedule)";
    ScheduleChoice.Chosen c = choice.choose(op, m, def, target, configured, what, where);
    Schedule s = c.schedule();
    Knobs knobs = c.knobs();
    List<String> unused = knobs.unused();
    UserError.check(
        unused.isEmpty(),
        "%s: configuration %s sets knobs %s that the schedule does not ask for (it asks %s)",
        where,
        key,
        unused,
        knobs.space().keySet());
    Schedule sched = s;
    LoweredModule lm =
        context(where, () -> Lower.lowerModule(sched, fn, def.args(), target, width, null));
    List<Kernel> kernels = new ArrayList<>();
    List<Temporary> temps = new ArrayList<>();
    List<PrimFunc> fs = funcs.computeIfAbsent(target, t -> new ArrayList<>());
    for (LoweredModule.Temporary t : lm.temporaries()) {
      temps.add(new Temporary(t.buffer().name(), t.buffer().dtype(), t.size()));
    }
    for (LoweredModule.Kernel k : lm.kernels()) {
      kernels.add(new Kernel(k.func().name(), OperatorModel.params(k.func()), k.geometry()));
      fs.add(k.func());
    }
    Map<String, Map<String, Integer>> tunedByIsaLevel = new java.util.TreeMap<>();
    if (target == Target.C && configured == null) {
      List<String> untuned =
          choice.tunedPerIsaLevel(
              op, m, def, fn, width, what, where, fs.size() - 1, tunedByIsaLevel);
      choice.noteCFallback(what, c.cFallback(), untuned);
      choice.untunedPerIsaLevel(m, def, fn, width, what, where, fs.size() - 1, c, untuned);
    }
    List<String> trace = s.trace().steps().stream().map(Object::toString).toList();
    return new Build(
        m == null ? "default" : m.getDeclaringClass().getSimpleName() + "." + m.getName(),
        knobs.isConfigured() ? c.source() : "default",
        knobs.chosen(),
        knobs.space(),
        tunedByIsaLevel,
        trace,
        temps,
        kernels);
  }

  /**
   * Each target's module from {@code emit}, the targets at once: cc's and nvcc's processes overlap
   * (the conv-bn-swish sample's generate: cc 14 s for its AVX-512 library, nvcc 13 s for its
   * fatbin, one after the other before). Every emission ends before this returns; the first failure
   * in target order is thrown, so that errors do not depend on timing.
   */
  private static Map<Target, LibraryModel.Module> emitConcurrently(
      List<Target> targets, Function<Target, LibraryModel.Module> emit) {
    Map<Target, CompletableFuture<LibraryModel.Module>> runs = new LinkedHashMap<>();
    for (Target t : targets) {
      runs.put(t, CompletableFuture.supplyAsync(() -> emit.apply(t), EMITS));
    }
    return InOrder.join(runs);
  }
}
