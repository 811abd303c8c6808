package dev.kernelgen.driver;

import dev.kernelgen.annotations.Target;
import dev.kernelgen.codegen.NativeToolchain;
import dev.kernelgen.diag.UserError;
import dev.kernelgen.tune.TuningRecord;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.EnumSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.TreeMap;
import java.util.function.Consumer;

/**
 * Everything one run of the driver needs, immutable: the loaded spec classes, the targets, where to
 * write, the native tools and the knob configurations. Build one with {@link #builder()}.
 *
 * @param specs the spec classes, each with the source file it came from (for messages)
 * @param targets the targets to build; empty means each library's own list, otherwise each library
 *     builds the intersection of its list and these
 * @param resourcesDir the resource root the kernels go under ({@code META-INF/kernels/<library>/})
 * @param toolchain cc and nvcc
 * @param cudaArchitectures the real architectures whose SASS goes into each fatbin ({@code sm_90});
 *     the fatbin's PTX is built for the virtual architecture of the newest
 * @param configurations knob values per build, keyed {@code library/operator/TARGET} (the generic
 *     kernels) or {@code library/operator/TARGET/c=256,h=96} (a specialization)
 * @param tuning records of the tuning logs: an operator of fixed shape without an explicit
 *     configuration takes the best record for its (operator, target, device, shape)
 * @param tuningDevices per target, the device whose records to use; a target not listed uses the
 *     only device the log has records of for an operator (none when there are several)
 * @param log receives one line per step worth telling
 */
public record GenerateRequest(
    List<SpecSource> specs,
    Set<Target> targets,
    Path resourcesDir,
    NativeToolchain toolchain,
    List<String> cudaArchitectures,
    Map<String, Map<String, Integer>> configurations,
    List<TuningRecord> tuning,
    Map<Target, String> tuningDevices,
    Consumer<String> log) {

  /** A loaded spec class and the file it was compiled from (null when unknown). */
  public record SpecSource(Class<?> type, Path file) {
    public SpecSource {
      Objects.requireNonNull(type, "type");
    }

    /** The file name for messages, else the class's simple name. */
    String displayName() {
      return file != null ? file.getFileName().toString() : type.getSimpleName() + ".java";
    }
  }

  public GenerateRequest {
    specs = List.copyOf(specs);
    targets = targets.isEmpty() ? Set.of() : Collections.unmodifiableSet(EnumSet.copyOf(targets));
    Objects.requireNonNull(resourcesDir, "resourcesDir");
    Objects.requireNonNull(toolchain, "toolchain");
    cudaArchitectures = List.copyOf(cudaArchitectures);
    for (String a : cudaArchitectures) {
      UserError.check(
          a.matches("sm_[0-9]+[a-z]?"), "CUDA architecture '%s' is not of the form sm_90", a);
    }
    UserError.check(
        !cudaArchitectures.isEmpty(), "no CUDA architecture to build for (for example sm_90)");
    configurations = Collections.unmodifiableMap(new TreeMap<>(configurations));
    tuning = List.copyOf(tuning);
    tuningDevices = Map.copyOf(tuningDevices);
    Objects.requireNonNull(log, "log");
  }

  public static Builder builder() {
    return new Builder();
  }

  /** Collects a request's parts; {@link #build()} validates them. */
  public static final class Builder {
    private final List<SpecSource> specs = new ArrayList<>();
    private Set<Target> targets = Set.of();
    private Path resourcesDir;
    private NativeToolchain toolchain = NativeToolchain.fromEnvironment();
    private List<String> cudaArchitectures = List.of("sm_90");
    private Map<String, Map<String, Integer>> configurations = Map.of();
    private List<TuningRecord> tuning = List.of();
    private Map<Target, String> tuningDevices = Map.of();
    private Consumer<String> log = line -> {};

    private Builder() {}

    public Builder spec(Class<?> type, Path file) {
      specs.add(new SpecSource(type, file));
      return this;
    }

    public Builder spec(Class<?> type) {
      return spec(type, null);
    }

    public Builder targets(Set<Target> targets) {
      this.targets = targets;
      return this;
    }

    public Builder resourcesDir(Path dir) {
      this.resourcesDir = dir;
      return this;
    }

    public Builder toolchain(NativeToolchain toolchain) {
      this.toolchain = toolchain;
      return this;
    }

    public Builder cudaArchitectures(List<String> archs) {
      this.cudaArchitectures = archs;
      return this;
    }

    public Builder configurations(Map<String, Map<String, Integer>> configurations) {
      this.configurations = configurations;
      return this;
    }

    /** Records of the tuning logs (see {@link dev.kernelgen.tune.TuningLog#readDirectory}). */
    public Builder tuning(List<TuningRecord> records) {
      this.tuning = records;
      return this;
    }

    /** The device whose tuning records to use, per target. */
    public Builder tuningDevices(Map<Target, String> devices) {
      this.tuningDevices = devices;
      return this;
    }

    public Builder log(Consumer<String> log) {
      this.log = log;
      return this;
    }

    public GenerateRequest build() {
      return new GenerateRequest(
          specs,
          targets,
          resourcesDir,
          toolchain,
          cudaArchitectures,
          configurations,
          tuning,
          tuningDevices,
          log);
    }
  }
}
