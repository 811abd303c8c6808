package dev.kernelgen.maven.generate;

import dev.kernelgen.annotations.Target;
import dev.kernelgen.codegen.NativeToolchain;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.function.Consumer;

/**
 * What one {@code kernels:generate} needs, as the Mojo read it from the build: immutable and free
 * of Maven types.
 *
 * @param specDirectory the root of the spec sources ({@code src/main/kernels/java})
 * @param tuningDirectory tuning logs, whose content takes part in the digest (may not exist)
 * @param classPath the project's compile class path, without its own output directory
 * @param sourcesOutput where launcher sources go
 * @param resourcesOutput where kernels and manifests go
 * @param stateFile where the digest of the last build's inputs is kept
 * @param pluginVersion the plugin's version, part of the digest
 * @param targets the targets to build; empty: each library's own
 * @param cc the C compiler, or null to search PATH
 * @param nvcc nvcc, or null to search PATH and the usual CUDA directories
 * @param cudaArchitectures cubin architectures ({@code sm_90})
 * @param cFlags C compiler flags; empty: kernelgen's defaults
 * @param cpuIsaLevels the ISA levels ({@code -march} values) each C module is compiled for
 * @param tuningDevices per target, the device whose tuning records to use; a target not listed uses
 *     the only device its records are of
 * @param info receives progress lines
 * @param classesDirectory the project's class output, from which the files of an earlier generation
 *     that this one no longer makes are removed (a renamed library's kernels and launcher classes);
 *     null: none
 * @param aarch64Cc the C compiler of the aarch64 ISA levels ({@code armv8-a}), or null to search
 *     PATH for {@code aarch64-linux-gnu-gcc}
 */
public record GenerateSettings(
    Path specDirectory,
    Path tuningDirectory,
    List<Path> classPath,
    Path sourcesOutput,
    Path resourcesOutput,
    Path stateFile,
    String pluginVersion,
    Set<Target> targets,
    Path cc,
    Path nvcc,
    List<String> cudaArchitectures,
    List<String> cFlags,
    List<String> cpuIsaLevels,
    Map<Target, String> tuningDevices,
    Consumer<String> info,
    Path classesDirectory,
    Path aarch64Cc) {
  /**
   * Settings with the default ISA levels ({@link NativeToolchain#DEFAULT_ISA_LEVELS}) and no class
   * output to clean.
   */
  public GenerateSettings(
      Path specDirectory,
      Path tuningDirectory,
      List<Path> classPath,
      Path sourcesOutput,
      Path resourcesOutput,
      Path stateFile,
      String pluginVersion,
      Set<Target> targets,
      Path cc,
      Path nvcc,
      List<String> cudaArchitectures,
      List<String> cFlags,
      Map<Target, String> tuningDevices,
      Consumer<String> info) {
    this(
        specDirectory,
        tuningDirectory,
        classPath,
        sourcesOutput,
        resourcesOutput,
        stateFile,
        pluginVersion,
        targets,
        cc,
        nvcc,
        cudaArchitectures,
        cFlags,
        NativeToolchain.DEFAULT_ISA_LEVELS,
        tuningDevices,
        info,
        null,
        null);
  }

  public GenerateSettings {
    Objects.requireNonNull(specDirectory, "specDirectory");
    classPath = List.copyOf(classPath);
    Objects.requireNonNull(sourcesOutput, "sourcesOutput");
    Objects.requireNonNull(resourcesOutput, "resourcesOutput");
    Objects.requireNonNull(stateFile, "stateFile");
    targets = Set.copyOf(targets);
    cudaArchitectures = List.copyOf(cudaArchitectures);
    cFlags = List.copyOf(cFlags);
    cpuIsaLevels =
        cpuIsaLevels.isEmpty() ? NativeToolchain.DEFAULT_ISA_LEVELS : List.copyOf(cpuIsaLevels);
    tuningDevices = Map.copyOf(tuningDevices);
    Objects.requireNonNull(info, "info");
  }

  /** The configuration as text, for the digest: everything that changes the output. */
  String configuration() {
    return "targets="
        + new java.util.TreeSet<>(targets)
        + "\ncc="
        + cc
        + "\nnvcc="
        + nvcc
        + (aarch64Cc == null ? "" : "\naarch64Cc=" + aarch64Cc)
        + "\ncudaArchitectures="
        + cudaArchitectures
        + "\ncFlags="
        + cFlags
        + "\ncpuIsaLevels="
        + cpuIsaLevels
        + "\ntuningDevices="
        + new java.util.TreeMap<>(tuningDevices)
        + "\nplugin="
        + pluginVersion
        + "\n";
  }
}
