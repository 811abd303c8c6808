package dev.kernelgen.maven;

import dev.kernelgen.annotations.Target;
import dev.kernelgen.diag.CompilerBug;
import dev.kernelgen.diag.UserError;
import dev.kernelgen.maven.generate.GenerateSettings;
import dev.kernelgen.maven.generate.Generator;
import java.io.File;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.EnumMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.apache.maven.model.Resource;
import org.apache.maven.plugin.AbstractMojo;
import org.apache.maven.plugin.MojoExecutionException;
import org.apache.maven.plugin.MojoFailureException;
import org.apache.maven.plugin.descriptor.PluginDescriptor;
import org.apache.maven.plugins.annotations.LifecyclePhase;
import org.apache.maven.plugins.annotations.Mojo;
import org.apache.maven.plugins.annotations.Parameter;
import org.apache.maven.plugins.annotations.ResolutionScope;
import org.apache.maven.project.MavenProject;

/**
 * Generates kernels and launcher classes from the kernel specs in {@code src/main/kernels/java}:
 * compiles the specs in memory, runs their {@code @Operator} and {@code @ScheduleFor} methods,
 * lowers and compiles the kernels for each target, and writes them as resources with a manifest,
 * and the launchers as sources. Both roots are added to the build, also when nothing had to be
 * generated.
 */
@Mojo(
    name = "generate",
    defaultPhase = LifecyclePhase.GENERATE_SOURCES,
    threadSafe = true,
    requiresDependencyResolution = ResolutionScope.COMPILE)
public final class GenerateMojo extends AbstractMojo {

  /** Skips the goal: nothing is generated and no root is added. */
  @Parameter(property = "kernels.skip", defaultValue = "false")
  private boolean skip;

  /** The root of the spec sources: classes annotated {@code @KernelLibrary}. */
  @Parameter(
      property = "kernels.specDirectory",
      defaultValue = "${project.basedir}/src/main/kernels/java")
  private File specDirectory;

  /** Tuning logs; their content takes part in deciding whether to regenerate. */
  @Parameter(
      property = "kernels.tuningDirectory",
      defaultValue = "${project.basedir}/src/main/kernels/tuning")
  private File tuningDirectory;

  /** Where the launcher sources (and the Java target's kernels) are written. */
  @Parameter(
      property = "kernels.sourcesOutputDirectory",
      defaultValue = "${project.build.directory}/generated-sources/kernels")
  private File sourcesOutputDirectory;

  /** Where the kernels and manifests are written, under {@code META-INF/kernels/}. */
  @Parameter(
      property = "kernels.resourcesOutputDirectory",
      defaultValue = "${project.build.directory}/generated-resources/kernels")
  private File resourcesOutputDirectory;

  /**
   * The targets to build: {@code CUDA}, {@code OPENCL}, {@code C}, {@code JAVA}. Empty (the
   * default): each library's own targets; otherwise each library builds those of its targets that
   * are listed here.
   */
  @Parameter(property = "kernels.targets")
  private List<String> targets = new ArrayList<>();

  /**
   * The C compiler for the C target; by default {@code cc}, {@code gcc} or {@code clang} on PATH.
   */
  @Parameter(property = "kernels.cc")
  private File cc;

  /**
   * nvcc for the CUDA target; by default looked up on PATH, in {@code $CUDA_HOME/bin} and in {@code
   * /usr/local/cuda/bin}.
   */
  @Parameter(property = "kernels.nvcc")
  private File nvcc;

  /**
   * The C compiler of the aarch64 ISA levels ({@code armv8-a} in {@link #cpuIsaLevels}); by default
   * {@code aarch64-linux-gnu-gcc} on PATH (Debian's and Ubuntu's {@code gcc-aarch64-linux-gnu}).
   */
  @Parameter(property = "kernels.aarch64Cc")
  private File aarch64Cc;

  /**
   * The GPU architectures whose SASS goes into each module's fatbin; the PTX beside it is built for
   * the newest, so that the driver compiles it for newer GPUs.
   */
  @Parameter(property = "kernels.cudaArchitectures", defaultValue = "sm_90")
  private List<String> cudaArchitectures;

  /**
   * Flags for the C compiler; empty (the default): {@code -O3 -fopenmp -shared -fPIC -std=c11
   * -ffp-contract=fast -fno-math-errno -fno-trapping-math -fno-tree-loop-distribute-patterns}. The
   * {@code -march} comes from {@link #cpuIsaLevels}.
   */
  @Parameter(property = "kernels.cFlags")
  private List<String> cFlags = new ArrayList<>();

  /**
   * The CPU ISA levels each C module is compiled for, one shared library each, all embedded; the
   * runtime loads the best one the CPU supports. Default {@code x86-64-v2,x86-64-v3,x86-64-v4}
   * (SSE4.2; AVX2 and FMA; AVX-512). {@code armv8-a} adds a library for aarch64 machines, built by
   * {@link #aarch64Cc}. {@code native} compiles for the build machine's CPU alone.
   */
  @Parameter(property = "kernels.cpuIsaLevels", defaultValue = "x86-64-v2,x86-64-v3,x86-64-v4")
  private List<String> cpuIsaLevels;

  /**
   * Which device's tuning records to use, per target, as {@code TARGET=device name} (for example
   * {@code CUDA=CUDA 0: NVIDIA H200 (sm_90)}). A target not listed uses the only device its records
   * are of; with records of several devices and none chosen, the defaults are used and the build
   * says so.
   */
  @Parameter(property = "kernels.tuningDevices")
  private List<String> tuningDevices = new ArrayList<>();

  @Parameter(defaultValue = "${project}", readonly = true, required = true)
  private MavenProject project;

  @Parameter(defaultValue = "${plugin}", readonly = true, required = true)
  private PluginDescriptor plugin;

  @Override
  public void execute() throws MojoExecutionException, MojoFailureException {
    if (skip) {
      getLog().info("kernel generation skipped (kernels.skip)");
      return;
    }
    GenerateSettings settings =
        new GenerateSettings(
            specDirectory.toPath(),
            tuningDirectory.toPath(),
            MojoParameters.specClassPath(project),
            sourcesOutputDirectory.toPath(),
            resourcesOutputDirectory.toPath(),
            Path.of(project.getBuild().getDirectory(), "kernelgen", "inputs.sha256"),
            plugin.getVersion(),
            MojoParameters.targets(targets),
            cc == null ? null : cc.toPath(),
            nvcc == null ? null : nvcc.toPath(),
            cudaArchitectures,
            cFlags,
            MojoParameters.isaLevels(cpuIsaLevels),
            parseTuningDevices(tuningDevices),
            line -> getLog().info(line),
            Path.of(project.getBuild().getOutputDirectory()),
            aarch64Cc == null ? null : aarch64Cc.toPath());
    Generator.Outcome outcome;
    try {
      outcome = Generator.run(settings);
    } catch (UserError e) {
      throw new MojoFailureException(e.getMessage(), e);
    } catch (CompilerBug e) {
      throw new MojoExecutionException(e.getMessage(), e);
    }
    if (outcome != Generator.Outcome.NO_SPECS) {
      addRoots();
    }
  }

  /** {@code TARGET=device} entries as a map; a user error names a malformed entry. */
  static Map<Target, String> parseTuningDevices(List<String> entries) throws MojoFailureException {
    Map<Target, String> out = new EnumMap<>(Target.class);
    for (String e : entries) {
      int eq = e.indexOf('=');
      Target t = null;
      if (eq > 0) {
        try {
          t = Target.valueOf(e.substring(0, eq).strip().toUpperCase(Locale.ROOT));
        } catch (IllegalArgumentException x) {
          t = null;
        }
      }
      if (t == null) {
        throw new MojoFailureException(
            "<tuningDevices> entry '"
                + e
                + "' is not of the form TARGET=device name (targets: "
                + Arrays.toString(Target.values())
                + ")");
      }
      out.put(t, e.substring(eq + 1).strip());
    }
    return out;
  }

  private void addRoots() {
    String sources = sourcesOutputDirectory.getAbsolutePath();
    if (!project.getCompileSourceRoots().contains(sources)) {
      project.addCompileSourceRoot(sources);
    }
    String resources = resourcesOutputDirectory.getAbsolutePath();
    boolean present =
        project.getResources().stream().anyMatch(r -> resources.equals(r.getDirectory()));
    if (!present) {
      Resource r = new Resource();
      r.setDirectory(resources);
      project.addResource(r);
    }
  }
}
