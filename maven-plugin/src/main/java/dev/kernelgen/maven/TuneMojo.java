package dev.kernelgen.maven;

import dev.kernelgen.diag.CompilerBug;
import dev.kernelgen.diag.UserError;
import dev.kernelgen.maven.generate.Generator;
import dev.kernelgen.maven.tune.TuneRunner;
import dev.kernelgen.maven.tune.TuneSettings;
import java.io.File;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.apache.maven.plugin.AbstractMojo;
import org.apache.maven.plugin.MojoExecutionException;
import org.apache.maven.plugin.MojoFailureException;
import org.apache.maven.plugins.annotations.Mojo;
import org.apache.maven.plugins.annotations.Parameter;
import org.apache.maven.plugins.annotations.ResolutionScope;
import org.apache.maven.project.MavenProject;

/**
 * Tunes the kernels of the specs in {@code src/main/kernels/java} on the devices of this machine:
 * searches each operator's configuration space (for every shape fixed by its declaration or a
 * specialization, and every target with a device present) and appends the trials to {@code
 * <tuningDirectory>/<library>.jsonl}. Run it where the kernels will run, commit the logs, and every
 * later {@code generate} picks the best configuration without a device. Interrupted, it resumes:
 * configurations already in the log are not measured again.
 */
@Mojo(name = "tune", threadSafe = true, requiresDependencyResolution = ResolutionScope.COMPILE)
public final class TuneMojo extends AbstractMojo {

  /** Skips the goal. */
  @Parameter(property = "kernels.tune.skip", defaultValue = "false")
  private boolean skip;

  /** The root of the spec sources. */
  @Parameter(
      property = "kernels.specDirectory",
      defaultValue = "${project.basedir}/src/main/kernels/java")
  private File specDirectory;

  /** Where the tuning logs are appended to, one {@code <library>.jsonl} per library. */
  @Parameter(
      property = "kernels.tuningDirectory",
      defaultValue = "${project.basedir}/src/main/kernels/tuning")
  private File tuningDirectory;

  /** The targets to tune ({@code CUDA}, {@code OPENCL}, {@code C}); empty: each library's own. */
  @Parameter(property = "kernels.targets")
  private List<String> targets = new ArrayList<>();

  /** Tune only operators whose {@code library/operator} name contains one of these. */
  @Parameter(property = "kernels.tune.operators")
  private List<String> operators = new ArrayList<>();

  /**
   * The most configurations measured per operator and shape (a smaller space is measured whole).
   */
  @Parameter(property = "kernels.tune.trials", defaultValue = "64")
  private int trials;

  /** Stop an operator's search after this many trials without improvement; 0: never early. */
  @Parameter(property = "kernels.tune.patience", defaultValue = "32")
  private int patience;

  /** The longest one operator's search may take, in seconds. */
  @Parameter(property = "kernels.tune.timeLimitSeconds", defaultValue = "600")
  private int timeLimitSeconds;

  /** Timed samples per C candidate. */
  @Parameter(property = "kernels.tune.repeats", defaultValue = "15")
  private int repeats;

  /** The C compiler; by default {@code cc}, {@code gcc} or {@code clang} on PATH. */
  @Parameter(property = "kernels.cc")
  private File cc;

  /** nvcc; by default looked up on PATH, in {@code $CUDA_HOME/bin} and {@code /usr/local/cuda}. */
  @Parameter(property = "kernels.nvcc")
  private File nvcc;

  /**
   * The CPU ISA levels {@code generate} builds ({@code kernels.cpuIsaLevels}); C candidates are
   * measured at the best of them this CPU runs, and their records carry that level.
   */
  @Parameter(property = "kernels.cpuIsaLevels", defaultValue = "x86-64-v2,x86-64-v3,x86-64-v4")
  private List<String> cpuIsaLevels;

  /**
   * Also tune the generated schedules (the auto-scheduler's space) of operators whose schedule
   * comes from a {@code @ScheduleFor} method or a library template, under the same budget per
   * search; {@code generate} then embeds whichever record is faster.
   */
  @Parameter(property = "kernels.tune.raceGenerated", defaultValue = "true")
  private boolean raceGenerated;

  @Parameter(defaultValue = "${project}", readonly = true, required = true)
  private MavenProject project;

  @Override
  public void execute() throws MojoExecutionException, MojoFailureException {
    if (skip) {
      getLog().info("kernel tuning skipped (kernels.tune.skip)");
      return;
    }
    TuneSettings s =
        new TuneSettings(
            specDirectory.toPath(),
            MojoParameters.specClassPath(project),
            tuningDirectory.toPath(),
            MojoParameters.targets(targets),
            operators,
            cc == null ? null : cc.toPath(),
            nvcc == null ? null : nvcc.toPath(),
            trials,
            patience,
            Duration.ofSeconds(timeLimitSeconds),
            repeats,
            MojoParameters.isaLevels(cpuIsaLevels),
            raceGenerated,
            line -> getLog().info(line));
    try {
      TuneRunner.run(s);
    } catch (UserError e) {
      throw new MojoFailureException(Generator.hint(e).getMessage(), e);
    } catch (CompilerBug e) {
      throw new MojoExecutionException(e.getMessage(), e);
    }
  }
}
