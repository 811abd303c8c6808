package dev.kernelgen.driver;

import dev.kernelgen.annotations.Target;
import dev.kernelgen.autosched.AnalyticPredictor;
import dev.kernelgen.autosched.AutoScheduler;
import dev.kernelgen.autosched.SketchRules;
import dev.kernelgen.autosched.VectorUnit;
import dev.kernelgen.diag.CompilerBug;
import dev.kernelgen.diag.UserError;
import dev.kernelgen.driver.GenerateRequest.SpecSource;
import dev.kernelgen.driver.SpecReader.LibrarySpec;
import dev.kernelgen.topi.DefaultSchedules;
import dev.kernelgen.tune.Configuration;
import dev.kernelgen.tune.TuningTask;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.Supplier;

/**
 * Turns spec classes into kernels: runs each {@code @Operator} method, schedules the operator for
 * every target (the spec's {@code @ScheduleFor} method, else {@link DefaultSchedules}), lowers it,
 * generates code, compiles native code (cc for C, nvcc for CUDA), and writes the kernels and a
 * manifest per library under {@code META-INF/kernels/<library>/} of the request's resource
 * directory. Knows nothing of Maven.
 *
 * <p>The driver orchestrates: each library is built by a {@link LibraryBuild}, which chooses
 * schedules ({@link ScheduleChoice}), lowers, emits modules ({@link ModuleEmitter}) and writes the
 * manifest ({@link Manifest}).
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
    return tuningTasks(request, false);
  }

  /**
   * As above; with {@code raceGenerated}, an operator whose schedule comes from a spec method or a
   * library template also gets a task over the generated schedules' space, under the same operator
   * name, so that the faster of the two spaces' records is the one {@code generate} embeds.
   */
  public static List<TuningTask> tuningTasks(GenerateRequest request, boolean raceGenerated) {
    KernelDriver d = new KernelDriver(request);
    List<TuningTask> out = new ArrayList<>();
    for (SpecSource s : request.specs()) {
      LibrarySpec lib = SpecReader.read(s);
      out.addAll(
          new LibraryBuild(request, d.errors, lib, request.resourcesDir()).tasks(raceGenerated));
    }
    out.sort(Comparator.comparing(TuningTask::operator).thenComparing(TuningTask::kernelName));
    return out;
  }

  /** Whether {@code task} searches the generated schedules' space (its knobs include "sketch"). */
  public static boolean generatedSchedules(TuningTask task) {
    return task.space().knobs().containsKey(AutoScheduler.SKETCH);
  }

  /**
   * The configurations a search of {@code task} measures first: for the generated schedules, the
   * untuned pick (what {@code generate} embeds without a record), so that a search never ends
   * slower than building without one, and on GPUs the naive floor (a thread per output) where the
   * pick is not it, so that no search ends slower than the floor either (the pick of a user's LRN
   * ran 9.5 us against its naive kernel's 7.8 on an H100); none for a template's or a schedule
   * method's space. (Not on CPUs: there the floor is the loop nest run serially, which a search at
   * a large shape would wait seconds or minutes for, and every pick measured beat it.) Where the
   * DAG has a direct 3x3 convolution, also the other algorithm's pick (direct or Winograd's, {@link
   * AutoScheduler#WINOGRAD}), so that the search races the two from their best guesses.
   */
  public static List<Configuration> firstCandidates(TuningTask task) {
    return firstCandidates(task, null);
  }

  /**
   * As above, a C pick sized for the vector unit of {@code isaLevel}, the level measured at ({@code
   * x86-64-v3}; null: AVX-512's, as {@code generate}'s shared C source).
   */
  public static List<Configuration> firstCandidates(TuningTask task, String isaLevel) {
    if (!generatedSchedules(task)) {
      return List.of();
    }
    VectorUnit vectors = isaLevel == null ? VectorUnit.AVX512 : VectorUnit.ofIsaLevel(isaLevel);
    Configuration pick =
        AutoScheduler.untunedConfig(
            task.target(),
            vectors,
            task.def().outputs(),
            SketchRules.defaults(),
            new AnalyticPredictor());
    boolean gpu = task.target() == Target.CUDA || task.target() == Target.OPENCL;
    int chosen = pick.values().getOrDefault(AutoScheduler.SKETCH, AutoScheduler.RULES);
    // The other algorithm's pick where there is one (the configuration holds both), and on GPUs
    // the naive floor.
    List<Integer> others = new ArrayList<>();
    if (task.space()
        .knobs()
        .getOrDefault(AutoScheduler.SKETCH, List.of())
        .contains(AutoScheduler.WINOGRAD)) {
      others.add(chosen == AutoScheduler.WINOGRAD ? AutoScheduler.RULES : AutoScheduler.WINOGRAD);
    }
    if (gpu && chosen != AutoScheduler.NAIVE) {
      others.add(AutoScheduler.NAIVE);
    }
    List<Configuration> first = new ArrayList<>(List.of(pick));
    for (int sketch : others) {
      Map<String, Integer> v = new TreeMap<>(pick.values());
      v.put(AutoScheduler.SKETCH, sketch);
      first.add(Configuration.of(v));
    }
    return first;
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
            errors.collect(
                lib.source().displayName(),
                () -> new LibraryBuild(request, errors, lib, tmp).build());
        if (m != null) {
          models.add(m);
        }
      }
      errors.throwIfAny();
      DriverFiles.createDirectories(tmp);
      deleteTree(out);
      DriverFiles.createDirectories(out.getParent());
      DriverFiles.move(tmp, out);
      done = true;
      return models;
    } finally {
      if (!done) {
        deleteTree(tmp);
      }
    }
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
    return DriverFiles.sha(s);
  }

  static String sha256(byte[] bytes) {
    return DriverFiles.sha256(bytes);
  }

  /** Deletes a directory tree, if it exists. */
  public static void deleteTree(Path dir) {
    DriverFiles.deleteTree(dir);
  }
}
