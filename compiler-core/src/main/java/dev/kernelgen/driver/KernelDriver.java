package dev.kernelgen.driver;

import dev.kernelgen.annotations.Target;
import dev.kernelgen.codegen.CCodegen;
import dev.kernelgen.codegen.CudaCodegen;
import dev.kernelgen.codegen.JavaCodegen;
import dev.kernelgen.codegen.LaunchGeometry;
import dev.kernelgen.codegen.NativeToolchain;
import dev.kernelgen.codegen.OpenClCodegen;
import dev.kernelgen.diag.CompilerBug;
import dev.kernelgen.diag.UserError;
import dev.kernelgen.driver.GenerateRequest.SpecSource;
import dev.kernelgen.driver.LibraryModel.Argument;
import dev.kernelgen.driver.LibraryModel.Build;
import dev.kernelgen.driver.LibraryModel.Kernel;
import dev.kernelgen.driver.LibraryModel.Param;
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
import dev.kernelgen.te.Buffer;
import dev.kernelgen.te.ComputeOp;
import dev.kernelgen.te.ExprPrinter;
import dev.kernelgen.te.IterVar;
import dev.kernelgen.te.Tensor;
import dev.kernelgen.te.Var;
import dev.kernelgen.tir.PrimFunc;
import dev.kernelgen.topi.DefaultSchedules;
import dev.kernelgen.tune.TuningLog;
import dev.kernelgen.tune.TuningRecord;
import dev.kernelgen.tune.TuningTask;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.reflect.Method;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.EnumMap;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.Supplier;
import java.util.stream.Collectors;

/**
 * Turns spec classes into kernels: runs each {@code @Operator} method, schedules the operator for
 * every target (the spec's {@code @ScheduleFor} method, else {@link DefaultSchedules}), lowers it,
 * generates code, compiles native code (cc for C, nvcc for CUDA), and writes the kernels and a
 * manifest per library under {@code META-INF/kernels/<library>/} of the request's resource
 * directory. Knows nothing of Maven.
 *
 * <p>Nothing is half-written: everything goes to a sibling temporary directory first, which
 * replaces the resource directory only when every library was built.
 */
public final class KernelDriver {
  /**
   * Version of the manifest's layout. 2: a C module lists {@code sharedLibraries}, one per ISA
   * level ({@code isa}, {@code file}, {@code sha256}), instead of one {@code sharedLibrary}; a CUDA
   * module has one {@code fatbin} ({@code file}, {@code sha256}, {@code architectures}) instead of
   * {@code ptx} and {@code cubins}.
   */
  public static final int MANIFEST_FORMAT = 2;

  /** What names the 64-bit-index kernels of a variant with symbolic dims: {@code <fn>_idx64}. */
  public static final String WIDE_SUFFIX = "_idx64";

  private final GenerateRequest request;

  /** Every user error of the build, reported together at its end. */
  private final UserErrors errors = new UserErrors();

  private KernelDriver(GenerateRequest request) {
    this.request = request;
  }

  /**
   * Builds every library of the request and returns their models, for launcher generation.
   *
   * @throws UserError naming the spec file, class, method and problem; one for all the problems
   *     found, every operator and library being built as far as its own mistakes allow
   */
  public static List<LibraryModel> generate(GenerateRequest request) {
    return new KernelDriver(request).run();
  }

  /**
   * The tuning tasks of every library of the request: each operator variant of fixed shape (every
   * dim fixed by the declaration or a specialization) for each of its targets but Java, scheduled
   * by its spec's schedule or the default one. Variants with symbolic dims are skipped, and said so
   * on the request's log.
   */
  public static List<TuningTask> tuningTasks(GenerateRequest request) {
    KernelDriver d = new KernelDriver(request);
    List<TuningTask> out = new ArrayList<>();
    for (SpecSource s : request.specs()) {
      LibrarySpec lib = SpecReader.read(s);
      out.addAll(d.new LibraryBuild(lib, request.resourcesDir()).tasks());
    }
    out.sort(Comparator.comparing(TuningTask::operator).thenComparing(TuningTask::kernelName));
    return out;
  }

  /** {@code META-INF/kernels/<library>}: where a library's kernels lie among the resources. */
  public static String resourceDir(String library) {
    return "META-INF/kernels/" + library;
  }

  /** This platform as the C kernels' directory names it: {@code linux-amd64}. */
  public static String platform() {
    String os = System.getProperty("os.name", "unknown").toLowerCase(Locale.ROOT);
    os = os.startsWith("mac") ? "macos" : os.startsWith("windows") ? "windows" : os.split(" ")[0];
    return os + "-" + System.getProperty("os.arch", "unknown").toLowerCase(Locale.ROOT);
  }

  private List<LibraryModel> run() {
    List<LibrarySpec> libs = new ArrayList<>();
    Map<String, SpecSource> names = new TreeMap<>();
    for (SpecSource s : request.specs()) {
      LibrarySpec lib = errors.collect(s.displayName(), () -> SpecReader.read(s));
      if (lib == null) {
        continue;
      }
      SpecSource before = names.put(lib.name(), s);
      if (before != null) {
        errors.add(
            s.displayName()
                + ": library '"
                + lib.name()
                + "' is also declared by "
                + before.type().getName());
        continue;
      }
      libs.add(lib);
    }
    libs.sort(Comparator.comparing(LibrarySpec::name));
    Path out = request.resourcesDir();
    Path tmp = out.resolveSibling(out.getFileName() + ".tmp");
    deleteTree(tmp);
    boolean done = false;
    try {
      List<LibraryModel> models = new ArrayList<>();
      for (LibrarySpec lib : libs) {
        LibraryModel m =
            errors.collect(lib.source().displayName(), () -> new LibraryBuild(lib, tmp).build());
        if (m != null) {
          models.add(m);
        }
      }
      errors.throwIfAny();
      createDirectories(tmp);
      deleteTree(out);
      createDirectories(out.getParent());
      move(tmp, out);
      done = true;
      return models;
    } finally {
      if (!done) {
        deleteTree(tmp);
      }
    }
  }

  /** The build of one library. */
  private final class LibraryBuild {
    private final LibrarySpec lib;
    private final Path dir;
    private final List<Target> targets;
    private final Map<Target, List<PrimFunc>> funcs = new EnumMap<>(Target.class);
    private final List<String> fallbacks = new ArrayList<>();

    /** C: per ISA level, the functions (by index into the C functions) tuned at that level. */
    private final Map<String, Map<Integer, PrimFunc>> cByIsaLevel = new TreeMap<>();

    LibraryBuild(LibrarySpec lib, Path root) {
      this.lib = lib;
      this.dir = root.resolve(resourceDir(lib.name()));
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

    List<TuningTask> tasks() {
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
          specs.add(parseSpecialization(where, sp, byName));
        }
        for (Map<Var, Long> spec : specs) {
          OperatorDef vdef = spec.isEmpty() ? def : Specializer.specialize(def, spec);
          String fn = op.name() + suffix(spec);
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
                    knobs -> schedule(op, m, vdef, t, knobs, w),
                    fn));
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
        request
            .log()
            .accept("library " + lib.name() + ": no tuning records, default configurations");
      } else if (!fallbacks.isEmpty()) {
        request
            .log()
            .accept(
                "library "
                    + lib.name()
                    + ": "
                    + fallbacks.size()
                    + " build(s) fell back to default schedules:\n  "
                    + String.join("\n  ", fallbacks));
      }
      Map<Target, LibraryModel.Module> modules = new EnumMap<>(Target.class);
      String javaClass = null;
      String javaSource = null;
      Map<String, Object> moduleJson = new LinkedHashMap<>();
      for (Target t : targets) {
        List<PrimFunc> fs = funcs.getOrDefault(t, List.of());
        Map<String, Object> json = new LinkedHashMap<>();
        LibraryModel.Module m =
            context("library '" + lib.name() + "', target " + t, () -> compile(t, fs, json));
        modules.put(t, m);
        moduleJson.put(t.name(), json);
        if (t == Target.JAVA) {
          javaClass = lib.name() + "Java";
          javaSource = JavaCodegen.generate(fs, lib.source().type().getPackageName(), javaClass);
          json.put("class", lib.source().type().getPackageName() + "." + javaClass);
          json.put("sourceSha256", sha256(javaSource.getBytes(StandardCharsets.UTF_8)));
        }
      }
      LibraryModel model =
          new LibraryModel(
              lib.name(),
              lib.source().type().getPackageName(),
              lib.source().type().getName(),
              targets,
              resourceDir(lib.name()),
              modules,
              ops,
              javaClass,
              javaSource);
      writeString(dir.resolve("manifest.json"), Json.pretty(manifest(model, moduleJson)));
      request.log().accept(summary(model));
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
        specializations.add(parseSpecialization(where, s, byName));
      }
      List<Variant> variants = new ArrayList<>();
      List<String> names = new ArrayList<>();
      Map<String, String> wideNames = new LinkedHashMap<>();
      for (Map<Var, Long> spec : specializations) {
        OperatorDef vdef = spec.isEmpty() ? def : Specializer.specialize(def, spec);
        String fn = op.name() + suffix(spec);
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
        List<Temporary> intermediates = symbolic ? intermediates(fn, dims) : List.of();
        variants.add(new Variant(named, builds, wide, intermediates));
      }
      return new LibraryModel.Operator(
          op.name(),
          op.method().getName(),
          expressions(def),
          arguments(def.inputs()),
          arguments(def.outputs()),
          dims.stream().map(Var::name).toList(),
          variants);
    }

    /**
     * The global buffers of symbolic size in the host functions (C, Java) named {@code fn}: sizes
     * over the operator's dims only, each once.
     */
    private List<Temporary> intermediates(String fn, List<Var> dims) {
      Map<String, Temporary> out = new LinkedHashMap<>();
      for (Target t : List.of(Target.C, Target.JAVA)) {
        for (PrimFunc f : funcs.getOrDefault(t, List.of())) {
          if (!f.name().equals(fn)) {
            continue;
          }
          new dev.kernelgen.tir.StmtVisitor() {
            @Override
            public void visit(dev.kernelgen.tir.Stmt s) {
              if (s instanceof dev.kernelgen.tir.Allocate a
                  && a.buffer().scope() == dev.kernelgen.te.MemoryScope.GLOBAL
                  && !(a.size() instanceof dev.kernelgen.te.IntImm)
                  && dims.containsAll(dev.kernelgen.te.FreeVars.of(a.size()))) {
                out.putIfAbsent(
                    a.buffer().name() + " " + ExprPrinter.print(a.size()),
                    new Temporary(a.buffer().name(), a.buffer().dtype(), a.size()));
              }
              super.visit(s);
            }
          }.visit(f.body());
        }
      }
      return List.copyOf(out.values());
    }

    private Build build(
        OperatorSpec op,
        OperatorDef def,
        Map<Var, Long> spec,
        String fn,
        Target target,
        IndexWidth width) {
      String key = lib.name() + "/" + op.name() + "/" + target + specKey(spec);
      Map<String, Integer> configured = request.configurations().get(key);
      Method m = op.schedules().get(target);
      String what =
          "operator '"
              + op.name()
              + "' for "
              + target
              + (spec.isEmpty() ? "" : " specialized to " + specKey(spec).substring(1));
      String where =
          m != null
              ? SpecReader.where(op.source(), m) + " (" + what + ")"
              : SpecReader.where(op.source(), op.method()) + " (" + what + ", default schedule)";
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
                      "its record sets knobs "
                          + k.unused()
                          + " that the schedule does not ask for");
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
        kernels.add(new Kernel(k.func().name(), params(k.func()), k.geometry()));
        fs.add(k.func());
      }
      if (target == Target.C && configured == null) {
        List<String> untuned = tunedPerIsaLevel(op, m, def, fn, width, what, where, fs.size() - 1);
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
      List<String> trace = s.trace().steps().stream().map(Object::toString).toList();
      return new Build(
          m == null ? "default" : m.getDeclaringClass().getSimpleName() + "." + m.getName(),
          knobs.isConfigured() ? source : "default",
          knobs.chosen(),
          knobs.space(),
          trace,
          temps,
          kernels);
    }

    /**
     * C: the tuning records measured at each ISA level replace, in that level's library, the
     * function at {@code index} of the C functions; a level without records keeps it (the default
     * schedule, or a record that names no level).
     *
     * @return the levels left without a tuned function
     */
    private List<String> tunedPerIsaLevel(
        OperatorSpec op,
        Method m,
        OperatorDef def,
        String fn,
        IndexWidth width,
        String what,
        String where,
        int index) {
      List<String> untuned = new ArrayList<>();
      for (String level : request.toolchain().isaLevels()) {
        Tuned t = tuned(op, def, Target.C, level);
        if (t.record == null) {
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
          PrimFunc lf =
              context(where, () -> Lower.lower(ts, fn, def.args(), Target.C, width, null));
          cByIsaLevel.computeIfAbsent(level, x -> new TreeMap<>()).put(index, lf);
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

    private Schedule schedule(
        OperatorSpec op, Method m, OperatorDef def, Target target, Knobs knobs, String where) {
      if (m == null) {
        return context(where, () -> DefaultSchedules.forTarget(target, def, knobs));
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

    /** The best tuning record of an operator variant, or why there is none. */
    private record Tuned(TuningRecord record, String reason) {}

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
      return new Tuned(l.best().orElse(null), l.reason());
    }

    private LibraryModel.Module compile(Target t, List<PrimFunc> fs, Map<String, Object> json) {
      String n = lib.name();
      return switch (t) {
        case C -> {
          String src = CCodegen.generate(fs, n);
          String srcPath = "c/" + n + ".c";
          writeString(dir.resolve(srcPath), src);
          Map<String, String> sources = new LinkedHashMap<>();
          for (String level : request.toolchain().isaLevels()) {
            Map<Integer, PrimFunc> tunedHere = cByIsaLevel.getOrDefault(level, Map.of());
            if (tunedHere.isEmpty()) {
              sources.put(level, src);
            } else {
              List<PrimFunc> lfs = new ArrayList<>(fs);
              tunedHere.forEach(lfs::set);
              String ls = CCodegen.generate(lfs, n);
              sources.put(level, ls);
              writeString(dir.resolve(cSourcePath(n, level)), ls);
            }
          }
          Map<String, Path> sos =
              request
                  .toolchain()
                  .compileSharedLibraries(
                      sources,
                      level -> {
                        Path so = dir.resolve(cLibraryPath(n, level)).toAbsolutePath();
                        createDirectories(so.getParent());
                        return so;
                      });
          List<LibraryModel.SharedLibrary> libs = new ArrayList<>();
          List<Object> libJson = new ArrayList<>();
          for (var e : sos.entrySet()) {
            String digest = sha256(readBytes(e.getValue()));
            libs.add(
                new LibraryModel.SharedLibrary(e.getKey(), cLibraryPath(n, e.getKey()), digest));
            Map<String, Object> lj = new LinkedHashMap<>();
            lj.put("isa", e.getKey());
            lj.put("file", cLibraryPath(n, e.getKey()));
            lj.put("sha256", digest);
            if (!sources.get(e.getKey()).equals(src)) {
              // Tuned at this level: its own schedules, so its own source.
              lj.put("source", cSourcePath(n, e.getKey()));
            }
            libJson.add(lj);
          }
          json.put("source", srcPath);
          json.put("sourceSha256", sha256(src.getBytes(StandardCharsets.UTF_8)));
          json.put("platform", platform());
          json.put("sharedLibraries", libJson);
          yield new LibraryModel.Module(t, srcPath, sha(src), libs, null);
        }
        case CUDA -> {
          String src = CudaCodegen.generate(fs, n);
          String srcPath = "cuda/" + n + ".cu";
          writeString(dir.resolve(srcPath), src);
          NativeToolchain.Fatbin fb =
              request.toolchain().compileFatbin(src, request.cudaArchitectures());
          String fatbinPath = "cuda/" + n + ".fatbin";
          writeBytes(dir.resolve(fatbinPath), fb.bytes());
          String digest = sha256(fb.bytes());
          Map<String, Object> fj = new LinkedHashMap<>();
          fj.put("file", fatbinPath);
          fj.put("sha256", digest);
          fj.put("architectures", fb.architectures());
          json.put("source", srcPath);
          json.put("sourceSha256", sha(src));
          json.put("fatbin", fj);
          yield new LibraryModel.Module(
              t,
              srcPath,
              sha(src),
              List.of(),
              new LibraryModel.Fatbin(fatbinPath, digest, fb.architectures()));
        }
        case OPENCL -> {
          String src = OpenClCodegen.generate(fs, n);
          String srcPath = "opencl/" + n + ".cl";
          writeString(dir.resolve(srcPath), src);
          json.put("source", srcPath);
          json.put("sourceSha256", sha(src));
          yield new LibraryModel.Module(t, srcPath, sha(src), List.of(), null);
        }
        case JAVA -> new LibraryModel.Module(t, null, null, List.of(), null);
      };
    }
  }

  /** {@code c/Name.x86-64-v3.c}: the C source of a level tuned apart from the others. */
  private static String cSourcePath(String library, String isaLevel) {
    return "c/" + library + "." + isaLevel + ".c";
  }

  /** {@code c/linux-amd64/x86-64-v3/libName.so}: a C library's resource for one ISA level. */
  private static String cLibraryPath(String library, String isaLevel) {
    return "c/" + platform() + "/" + isaLevel + "/" + System.mapLibraryName(library);
  }

  private static Map<Var, Long> parseSpecialization(
      String where, String text, Map<String, Var> dims) {
    Map<Var, Long> out = new LinkedHashMap<>();
    for (String part : text.split(",")) {
      String p = part.strip();
      int eq = p.indexOf('=');
      UserError.check(
          eq > 0, "%s: specialization '%s': '%s' is not of the form dim=value", where, text, p);
      String name = p.substring(0, eq).strip();
      Var v = dims.get(name);
      UserError.check(
          v != null,
          "%s: specialization '%s' names dim '%s', but the operator's dims are %s",
          where,
          text,
          name,
          dims.keySet());
      long value;
      try {
        value = Long.parseLong(p.substring(eq + 1).strip());
      } catch (NumberFormatException e) {
        throw new UserError(
            where + ": specialization '" + text + "': value of '" + name + "' is not an integer");
      }
      UserError.check(
          value > 0, "%s: specialization '%s': '%s' must be positive", where, text, name);
      UserError.check(
          out.put(v, value) == null, "%s: specialization '%s' sets '%s' twice", where, text, name);
    }
    // In the order of the operator's dims, so that equal specializations get equal names.
    Map<Var, Long> ordered = new LinkedHashMap<>();
    for (Var v : dims.values()) {
      if (out.containsKey(v)) {
        ordered.put(v, out.get(v));
      }
    }
    return ordered;
  }

  private static String suffix(Map<Var, Long> spec) {
    StringBuilder sb = new StringBuilder();
    for (var e : spec.entrySet()) {
      sb.append('_').append(e.getKey().name()).append(e.getValue());
    }
    return sb.toString();
  }

  private static String specKey(Map<Var, Long> spec) {
    if (spec.isEmpty()) {
      return "";
    }
    return "/"
        + spec.entrySet().stream()
            .map(e -> e.getKey().name() + "=" + e.getValue())
            .collect(Collectors.joining(","));
  }

  private static List<Param> params(PrimFunc f) {
    List<Param> out = new ArrayList<>();
    for (Buffer b : f.params()) {
      out.add(new Param.Buffer(b.name(), b.dtype()));
    }
    for (Var v : f.scalars()) {
      out.add(new Param.Dim(v.name(), v.dtype()));
    }
    return out;
  }

  private static List<Argument> arguments(List<Tensor> ts) {
    return ts.stream().map(t -> new Argument(t.name(), t.dtype(), t.shape())).toList();
  }

  private static List<String> expressions(OperatorDef def) {
    List<String> out = new ArrayList<>();
    for (Tensor t : def.graph()) {
      if (t.op() instanceof ComputeOp c) {
        String axes = c.axis().stream().map(IterVar::name).collect(Collectors.joining(", "));
        out.add(t.name() + "[" + axes + "] = " + ExprPrinter.print(c.body()));
      }
    }
    return out;
  }

  private Map<String, Object> manifest(LibraryModel m, Map<String, Object> modules) {
    Map<String, Object> j = new LinkedHashMap<>();
    j.put("format", MANIFEST_FORMAT);
    j.put("library", m.name());
    j.put("spec", m.specClass());
    j.put("targets", m.targets().stream().map(Target::name).toList());
    j.put("modules", modules);
    Map<String, Object> ops = new LinkedHashMap<>();
    for (LibraryModel.Operator op : m.operators()) {
      Map<String, Object> o = new LinkedHashMap<>();
      o.put("method", op.specMethod());
      o.put("inputs", op.inputs().stream().map(KernelDriver::argumentJson).toList());
      o.put("outputs", op.outputs().stream().map(KernelDriver::argumentJson).toList());
      o.put("dims", op.dims());
      o.put("expressions", op.expressions());
      // How many kernels the operator became, per variant and target.
      Map<String, Object> counts = new LinkedHashMap<>();
      for (Variant v : op.variants()) {
        Map<String, Object> perTarget = new LinkedHashMap<>();
        for (Target t : m.targets()) {
          perTarget.put(t.name(), v.builds().get(t).kernels().size());
        }
        counts.put(
            v.isGeneric()
                ? "generic"
                : v.specialization().entrySet().stream()
                    .map(e -> e.getKey() + "=" + e.getValue())
                    .collect(Collectors.joining(",")),
            perTarget);
      }
      o.put("kernelCount", counts);
      List<Object> vs = new ArrayList<>();
      for (Variant v : op.variants()) {
        Map<String, Object> vj = new LinkedHashMap<>();
        vj.put("specialization", v.specialization());
        Map<String, Object> bs = new LinkedHashMap<>();
        for (var e : v.builds().entrySet()) {
          bs.put(e.getKey().name(), buildJson(e.getValue()));
        }
        vj.put("targets", bs);
        if (!v.wideBuilds().isEmpty()) {
          Map<String, Object> ws = new LinkedHashMap<>();
          for (var e : v.wideBuilds().entrySet()) {
            ws.put(e.getKey().name(), buildJson(e.getValue()));
          }
          vj.put("targetsIndex64", ws);
        }
        vs.add(vj);
      }
      o.put("variants", vs);
      ops.put(op.name(), o);
    }
    j.put("operators", ops);
    return j;
  }

  private static Map<String, Object> argumentJson(Argument a) {
    Map<String, Object> j = new LinkedHashMap<>();
    j.put("name", a.name());
    j.put("dtype", a.dtype().name());
    j.put("shape", a.shape().stream().map(ExprPrinter::print).toList());
    return j;
  }

  private static Map<String, Object> buildJson(Build b) {
    Map<String, Object> j = new LinkedHashMap<>();
    j.put("schedule", b.schedule());
    j.put("configuration", b.configurationSource());
    j.put("knobs", b.knobs());
    Map<String, Object> space = new LinkedHashMap<>(b.space());
    j.put("space", space);
    j.put("trace", b.trace());
    j.put(
        "temporaries",
        b.temporaries().stream()
            .map(
                t ->
                    (Object)
                        Map.of(
                            "name", t.name(),
                            "dtype", t.dtype().name(),
                            "size", ExprPrinter.print(t.size())))
            .toList());
    List<Object> ks = new ArrayList<>();
    for (Kernel k : b.kernels()) {
      Map<String, Object> kj = new LinkedHashMap<>();
      kj.put("name", k.name());
      kj.put(
          "params",
          k.params().stream()
              .map(
                  p ->
                      p instanceof Param.Dim
                          ? p.name() + ": " + p.dtype()
                          : p.name() + ": " + p.dtype() + "*")
              .toList());
      if (k.geometry() != null) {
        LaunchGeometry g = k.geometry();
        kj.put(
            "grid",
            List.of(g.gridX(), g.gridY(), g.gridZ()).stream().map(ExprPrinter::print).toList());
        kj.put(
            "block",
            List.of(g.blockX(), g.blockY(), g.blockZ()).stream().map(ExprPrinter::print).toList());
      }
      ks.add(kj);
    }
    j.put("kernels", ks);
    return j;
  }

  private static String summary(LibraryModel m) {
    StringBuilder sb = new StringBuilder();
    sb.append("library ").append(m.name()).append(": ").append(m.targets());
    for (LibraryModel.Operator op : m.operators()) {
      sb.append("\n  ").append(op.name()).append(':');
      for (Variant v : op.variants()) {
        sb.append(v.isGeneric() ? " generic" : " " + v.specialization());
        sb.append(" [");
        sb.append(
            v.builds().entrySet().stream()
                .map(
                    e ->
                        e.getKey()
                            + " "
                            + e.getValue().kernels().size()
                            + " kernel(s), "
                            + e.getValue().schedule()
                            + (e.getValue().knobs().isEmpty() ? "" : " " + e.getValue().knobs()))
                .collect(Collectors.joining("; ")));
        sb.append(']');
      }
    }
    return sb.toString();
  }

  /** Runs {@code body}; a user error it throws gets {@code where} in front of its message. */
  static <T> T context(String where, Supplier<T> body) {
    try {
      return body.get();
    } catch (UserError e) {
      throw new UserError(where + ": " + e.getMessage(), e);
    } catch (CompilerBug e) {
      e.addSuppressed(new IllegalStateException("while building " + where));
      throw e;
    }
  }

  static String sha(String s) {
    return sha256(s.getBytes(StandardCharsets.UTF_8));
  }

  static String sha256(byte[] bytes) {
    try {
      return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(bytes));
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException(e);
    }
  }

  private static byte[] readBytes(Path p) {
    try {
      return Files.readAllBytes(p);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private static void writeString(Path p, String s) {
    writeBytes(p, s.getBytes(StandardCharsets.UTF_8));
  }

  private static void writeBytes(Path p, byte[] b) {
    try {
      Files.createDirectories(p.getParent());
      Files.write(p, b);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private static void createDirectories(Path p) {
    try {
      Files.createDirectories(p);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private static void move(Path from, Path to) {
    try {
      Files.move(from, to, StandardCopyOption.ATOMIC_MOVE);
    } catch (IOException e) {
      try {
        Files.move(from, to);
      } catch (IOException e2) {
        throw new UncheckedIOException(e2);
      }
    }
  }

  /** Deletes a directory tree, if it exists. */
  public static void deleteTree(Path dir) {
    if (!Files.exists(dir)) {
      return;
    }
    try (var files = Files.walk(dir)) {
      for (Path f : files.sorted(Comparator.reverseOrder()).toList()) {
        Files.delete(f);
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
