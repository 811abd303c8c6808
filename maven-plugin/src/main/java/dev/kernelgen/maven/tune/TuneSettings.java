package dev.kernelgen.maven.tune;

import dev.kernelgen.annotations.Target;
import dev.kernelgen.codegen.NativeToolchain;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import java.util.function.Consumer;

/**
 * What one {@code kernels:tune} needs, free of Maven types.
 *
 * @param specDirectory the root of the spec sources
 * @param classPath the project's compile class path
 * @param tuningDirectory where the logs are, one {@code <library>.jsonl} per library
 * @param targets the targets to tune; empty: each library's own (Java is never tuned)
 * @param operators tune only operators whose {@code library/operator} name contains one of these;
 *     empty: all
 * @param cc the C compiler, or null to search PATH
 * @param nvcc nvcc, or null to search
 * @param trials the most configurations measured per operator and shape
 * @param patience stop an operator's search after this many trials without improvement (0: never)
 * @param timeLimit the longest one operator's search may take
 * @param repeats timed samples per C candidate
 * @param cpuIsaLevels the ISA levels {@code generate} builds; C is measured at the best of them
 *     this CPU runs, and the records say which
 * @param raceGenerated also search the generated schedules' space of operators whose schedule comes
 *     from a spec method or a library template (the faster record wins in {@code generate})
 * @param info receives progress lines
 */
public record TuneSettings(
    Path specDirectory,
    List<Path> classPath,
    Path tuningDirectory,
    Set<Target> targets,
    List<String> operators,
    Path cc,
    Path nvcc,
    int trials,
    int patience,
    Duration timeLimit,
    int repeats,
    List<String> cpuIsaLevels,
    boolean raceGenerated,
    Consumer<String> info) {
  /**
   * Settings with the default ISA levels ({@link NativeToolchain#DEFAULT_ISA_LEVELS}), the spec's
   * schedules only (no race against the generated ones).
   */
  public TuneSettings(
      Path specDirectory,
      List<Path> classPath,
      Path tuningDirectory,
      Set<Target> targets,
      List<String> operators,
      Path cc,
      Path nvcc,
      int trials,
      int patience,
      Duration timeLimit,
      int repeats,
      Consumer<String> info) {
    this(
        specDirectory,
        classPath,
        tuningDirectory,
        targets,
        operators,
        cc,
        nvcc,
        trials,
        patience,
        timeLimit,
        repeats,
        NativeToolchain.DEFAULT_ISA_LEVELS,
        false,
        info);
  }

  public TuneSettings {
    Objects.requireNonNull(specDirectory, "specDirectory");
    classPath = List.copyOf(classPath);
    Objects.requireNonNull(tuningDirectory, "tuningDirectory");
    targets = Set.copyOf(targets);
    operators = List.copyOf(operators);
    Objects.requireNonNull(timeLimit, "timeLimit");
    cpuIsaLevels =
        cpuIsaLevels.isEmpty() ? NativeToolchain.DEFAULT_ISA_LEVELS : List.copyOf(cpuIsaLevels);
    Objects.requireNonNull(info, "info");
  }
}
