package dev.kernelgen.maven.generate;

import dev.kernelgen.annotations.KernelLibrary;
import dev.kernelgen.annotations.Target;
import dev.kernelgen.codegen.NativeToolchain;
import dev.kernelgen.diag.UserError;
import dev.kernelgen.driver.GenerateRequest;
import dev.kernelgen.driver.KernelDriver;
import dev.kernelgen.driver.LibraryModel;
import dev.kernelgen.maven.launcher.LauncherGenerator;
import dev.kernelgen.spec.OperatorDef;
import dev.kernelgen.tune.TuningLog;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.MalformedURLException;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.HexFormat;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.stream.Collectors;
import java.util.stream.Stream;

/**
 * The whole {@code kernels:generate} goal without Maven: decide from a digest of the inputs whether
 * anything must be built, compile the spec sources in memory, load the {@code @KernelLibrary}
 * classes, run the {@link KernelDriver}, and write the launchers.
 */
public final class Generator {
  /** What a run did. */
  public enum Outcome {
    /** There are no spec sources, or none declares a library. */
    NO_SPECS,
    /** The inputs are those of the last build and its outputs are there. */
    UP_TO_DATE,
    /** Kernels and launchers were written. */
    GENERATED
  }

  private Generator() {}

  /**
   * Runs the goal.
   *
   * @throws UserError naming the spec file, class, method and problem
   */
  public static Outcome run(GenerateSettings s) {
    List<Path> specs = specFiles(s.specDirectory());
    if (specs.isEmpty()) {
      s.info().accept("no kernel specs in " + s.specDirectory() + ": nothing to generate");
      return Outcome.NO_SPECS;
    }
    String digest = digest(s, specs);
    String before = readState(s.stateFile());
    if (digest.equals(before)
        && Files.isDirectory(s.sourcesOutput())
        && Files.isDirectory(s.resourcesOutput())) {
      s.info()
          .accept(
              "kernels are up to date ("
                  + specs.size()
                  + " spec file(s) unchanged): nothing to generate");
      return Outcome.UP_TO_DATE;
    }
    s.info()
        .accept(
            before == null
                ? "generating kernels: no previous build"
                : !digest.equals(before)
                    ? "generating kernels: spec sources, tuning logs or configuration changed"
                    : "generating kernels: outputs are missing");
    // A failed build must not leave a digest that would call the old outputs up to date.
    deleteIfExists(s.stateFile());
    Set<Path> oldResources = StaleOutputs.files(s.resourcesOutput());
    Set<Path> oldSources = StaleOutputs.files(s.sourcesOutput());
    GenerateRequest.Builder req = GenerateRequest.builder();
    int libraries = loadSpecs(specs, s.classPath(), req);
    if (libraries == 0) {
      s.info()
          .accept(
              "no class in "
                  + s.specDirectory()
                  + " is annotated @KernelLibrary: nothing to generate");
      return Outcome.NO_SPECS;
    }
    req.tuning(TuningLog.readDirectory(s.tuningDirectory(), w -> s.info().accept("warning: " + w)))
        .tuningDevices(s.tuningDevices());
    NativeToolchain tc = toolchain(s);
    req.targets(s.targets())
        .resourcesDir(s.resourcesOutput())
        .toolchain(tc)
        .cudaArchitectures(s.cudaArchitectures())
        .log(s.info());
    GenerateRequest request = req.build();
    List<LibraryModel> models;
    try {
      models = KernelDriver.generate(request);
    } catch (UserError e) {
      throw hint(
          e,
          request.specs().stream().<Class<?>>map(GenerateRequest.SpecSource::type).toList(),
          s.targets());
    }
    Path tmp = s.sourcesOutput().resolveSibling(s.sourcesOutput().getFileName() + ".tmp");
    KernelDriver.deleteTree(tmp);
    int files = 0;
    for (LibraryModel m : models) {
      for (LauncherGenerator.GeneratedSource g : LauncherGenerator.generate(m)) {
        write(tmp.resolve(g.path()), g.content());
        files++;
      }
    }
    KernelDriver.deleteTree(s.sourcesOutput());
    move(tmp, s.sourcesOutput());
    write(s.stateFile(), digest);
    int stale = StaleOutputs.remove(s, oldResources, oldSources);
    if (stale > 0) {
      s.info()
          .accept(
              "removed "
                  + stale
                  + " file(s) of the previous generation from "
                  + s.classesDirectory()
                  + " (kernels and launchers it no longer makes)");
    }
    s.info()
        .accept(
            "generated "
                + models.size()
                + " kernel librar"
                + (models.size() == 1 ? "y" : "ies")
                + " and "
                + files
                + " Java source(s)");
    return Outcome.GENERATED;
  }

  /**
   * Compiles the spec sources in memory against the plugin's spec API and the project's class path,
   * and adds every class annotated {@code @KernelLibrary} to {@code req}; returns how many.
   */
  public static int loadSpecs(List<Path> specs, List<Path> classPath, GenerateRequest.Builder req) {
    List<Path> cp = new ArrayList<>(pluginClassPath());
    cp.addAll(classPath);
    ClassLoader projectLoader =
        new URLClassLoader(urls(classPath), Generator.class.getClassLoader());
    InMemoryCompiler.Result compiled = InMemoryCompiler.compileFiles(specs, cp, projectLoader);
    int libraries = 0;
    for (String name : compiled.classes().keySet()) {
      Class<?> c;
      try {
        c = Class.forName(name, false, compiled.loader());
      } catch (ClassNotFoundException | LinkageError e) {
        throw new UserError("cannot load compiled spec class " + name + ": " + e, e);
      }
      if (c.isAnnotationPresent(KernelLibrary.class)) {
        String src = compiled.sources().get(name);
        req.spec(c, src == null ? null : Path.of(src));
        libraries++;
      }
    }
    return libraries;
  }

  /**
   * Adds to a missing-tool message how to configure the plugin. The new error has no cause: Maven
   * would print the cause's message (the same, in the toolchain's words) once more.
   */
  public static UserError hint(UserError e) {
    return hint(e, List.of(), Set.of());
  }

  /**
   * {@code e} with advice for a missing C or CUDA compiler: how to install it or point the plugin
   * at it, and which targets to build instead, chosen among those the {@code specs}' libraries
   * declare (narrowed by the {@code configured} targets, when any) so that every library keeps one.
   */
  public static UserError hint(UserError e, List<Class<?>> specs, Set<Target> configured) {
    // The toolchain names its Java API setters; a Maven user configures the plugin instead.
    String m = e.getMessage().replaceAll(" ?\\(NativeToolchain\\.with(Nvcc|Cc)\\)", "");
    StringBuilder advice = new StringBuilder();
    if (m.contains("CUDA compiler")) {
      advice.append(
          "\nnvcc comes with the CUDA Toolkit (https://developer.nvidia.com/cuda-downloads):"
              + " install it and put its bin directory on PATH or set CUDA_HOME, or configure the"
              + " plugin's <nvcc> (-Dkernels.nvcc=/path/to/nvcc).");
      advice.append(without(Target.CUDA, specs, configured));
    }
    if (m.contains("C compiler")) {
      advice.append(
          "\nInstall a C compiler with OpenMP (gcc or clang; on Debian or Ubuntu `apt-get install"
              + " gcc`) and put it on PATH, or configure the plugin's <cc> (-Dkernels.cc=/path/to/cc).");
      advice.append(without(Target.C, specs, configured));
    }
    return advice.isEmpty() ? e : new UserError(m + advice);
  }

  /** Which targets to build without {@code missing}: only ones the libraries declare. */
  private static String without(Target missing, List<Class<?>> specs, Set<Target> configured) {
    Set<Target> rest = EnumSet.noneOf(Target.class);
    List<String> stuck = new ArrayList<>();
    for (Class<?> spec : specs) {
      KernelLibrary lib = spec.getAnnotation(KernelLibrary.class);
      if (lib == null) {
        continue;
      }
      Set<Target> mine = EnumSet.noneOf(Target.class);
      for (Target t : lib.targets()) {
        if ((configured.isEmpty() || configured.contains(t)) && t != missing) {
          mine.add(t);
        }
      }
      if (mine.isEmpty()) {
        stuck.add(lib.name().isEmpty() ? spec.getSimpleName() + "Kernels" : lib.name());
      }
      rest.addAll(mine);
    }
    if (specs.isEmpty()) {
      return " Or build without " + missing + ": list the other targets in <targets>.";
    }
    if (!stuck.isEmpty()) {
      return " "
          + stuck
          + " declare"
          + (stuck.size() == 1 ? "s" : "")
          + " no target but "
          + missing
          + " among the configured ones, so "
          + missing
          + " is needed.";
    }
    return " Or build without "
        + missing
        + ": <targets> or -Dkernels.targets="
        + rest.stream().map(Target::name).collect(Collectors.joining(","))
        + ".";
  }

  /** The spec sources, sorted. */
  public static List<Path> specFiles(Path dir) {
    if (!Files.isDirectory(dir)) {
      return List.of();
    }
    try (Stream<Path> files = Files.walk(dir)) {
      return files
          .filter(p -> p.toString().endsWith(".java") && Files.isRegularFile(p))
          .sorted()
          .toList();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** The jars (or directories) holding the spec API: the specs compile against these. */
  private static List<Path> pluginClassPath() {
    Set<Path> out = new LinkedHashSet<>();
    for (Class<?> c : List.of(KernelLibrary.class, OperatorDef.class)) {
      try {
        out.add(Path.of(c.getProtectionDomain().getCodeSource().getLocation().toURI()));
      } catch (Exception e) {
        throw new IllegalStateException("cannot locate " + c.getName(), e);
      }
    }
    return List.copyOf(out);
  }

  private static URL[] urls(List<Path> paths) {
    URL[] urls = new URL[paths.size()];
    for (int i = 0; i < urls.length; i++) {
      try {
        urls[i] = paths.get(i).toUri().toURL();
      } catch (MalformedURLException e) {
        throw new IllegalArgumentException(e);
      }
    }
    return urls;
  }

  /**
   * SHA-256 over everything that decides the output: the configuration, the plugin's version, the
   * spec sources, the tuning logs, and the class path (names, sizes and times of its files).
   */
  /** The native toolchain the settings configure. */
  static NativeToolchain toolchain(GenerateSettings s) {
    NativeToolchain tc =
        NativeToolchain.fromEnvironment()
            .withCc(s.cc())
            .withNvcc(s.nvcc())
            .withAarch64Cc(s.aarch64Cc());
    if (!s.cFlags().isEmpty()) {
      tc = tc.withCFlags(s.cFlags());
    }
    return tc.withIsaLevels(s.cpuIsaLevels());
  }

  /**
   * The digest of everything that changes the output: the configuration (ISA levels and CUDA
   * architectures among it), the spec sources, the tuning logs, the compilers found (path and
   * {@code --version}), the plugin's own code (its jars' or class directories' content), and the
   * class path (directories by content, jars by size and time).
   */
  static String digest(GenerateSettings s, List<Path> specs) {
    try {
      MessageDigest md = MessageDigest.getInstance("SHA-256");
      update(md, s.configuration());
      NativeToolchain tc = toolchain(s);
      boolean arm = tc.isaLevels().stream().anyMatch(NativeToolchain::isAarch64Level);
      for (var tool :
          List.of(tc.findCc(), tc.findNvcc(), arm ? tc.findAarch64Cc() : Optional.<Path>empty())) {
        if (tool.isPresent()) {
          update(md, "tool " + tool.get() + "\n" + toolVersion(tc, tool.get()) + "\n");
        }
      }
      for (Path p : pluginCode()) {
        update(md, "plugin code " + p.getFileName() + "\n");
        content(md, p);
      }
      for (Path p : specs) {
        update(md, "spec " + s.specDirectory().relativize(p) + "\n");
        md.update(Files.readAllBytes(p));
      }
      if (s.tuningDirectory() != null && Files.isDirectory(s.tuningDirectory())) {
        try (Stream<Path> files = Files.walk(s.tuningDirectory())) {
          for (Path p : files.filter(Files::isRegularFile).sorted().toList()) {
            update(md, "tuning " + s.tuningDirectory().relativize(p) + "\n");
            md.update(Files.readAllBytes(p));
          }
        }
      }
      for (Path p : s.classPath()) {
        update(md, "classpath " + p);
        if (Files.isRegularFile(p)) {
          update(md, " " + Files.size(p) + " " + Files.getLastModifiedTime(p).toMillis());
        } else if (Files.isDirectory(p)) {
          content(md, p);
        }
        update(md, "\n");
      }
      return HexFormat.of().formatHex(md.digest());
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException(e);
    }
  }

  /** A tool's {@code --version} output; a tool that cannot say counts by its path alone. */
  private static String toolVersion(NativeToolchain tc, Path tool) {
    try {
      return tc.version(tool);
    } catch (UserError e) {
      return "(no version: " + e.getMessage() + ")";
    }
  }

  /** Where the plugin's own classes and the compiler's are: jars, or class directories. */
  static List<Path> pluginCode() {
    Set<Path> out = new LinkedHashSet<>();
    for (Class<?> c :
        List.of(
            Generator.class, KernelDriver.class, KernelLibrary.class, LauncherGenerator.class)) {
      try {
        out.add(Path.of(c.getProtectionDomain().getCodeSource().getLocation().toURI()));
      } catch (Exception e) {
        throw new IllegalStateException("cannot locate " + c.getName(), e);
      }
    }
    // The runtime's API shapes the generated launchers.
    try {
      out.add(
          Path.of(
              dev.kernelgen.runtime.launch.Launchers.class
                  .getProtectionDomain()
                  .getCodeSource()
                  .getLocation()
                  .toURI()));
    } catch (Exception e) {
      throw new IllegalStateException("cannot locate the kernelgen runtime", e);
    }
    return List.copyOf(out);
  }

  /** A file's bytes, or every file under a directory (relative name and bytes, in order). */
  private static void content(MessageDigest md, Path p) throws IOException {
    if (Files.isRegularFile(p)) {
      md.update(Files.readAllBytes(p));
      return;
    }
    if (!Files.isDirectory(p)) {
      return;
    }
    try (Stream<Path> files = Files.walk(p)) {
      for (Path f : files.filter(Files::isRegularFile).sorted().toList()) {
        update(md, "file " + p.relativize(f) + " " + Files.size(f) + "\n");
        md.update(Files.readAllBytes(f));
      }
    }
  }

  private static void update(MessageDigest md, String s) {
    md.update(s.getBytes(StandardCharsets.UTF_8));
  }

  private static String readState(Path p) {
    try {
      return Files.isRegularFile(p) ? Files.readString(p).strip() : null;
    } catch (IOException e) {
      return null;
    }
  }

  private static void write(Path p, String text) {
    try {
      Files.createDirectories(p.getParent());
      Files.writeString(p, text);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private static void deleteIfExists(Path p) {
    try {
      Files.deleteIfExists(p);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private static void move(Path from, Path to) {
    try {
      Files.createDirectories(from);
      Files.createDirectories(to.getParent());
      Files.move(from, to, StandardCopyOption.ATOMIC_MOVE);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
