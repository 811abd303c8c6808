package dev.kernelgen.measure;

import dev.kernelgen.annotations.Target;
import dev.kernelgen.json.Json;
import dev.kernelgen.tune.Configuration;
import dev.kernelgen.tune.Measurement;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;

/**
 * What the {@link Builder} made of one candidate: its kernel source and binary, or why there is
 * none. Serializable ({@link #toJson}), so that a runner elsewhere can load it.
 *
 * @param config the configuration built
 * @param trace the schedule's trace (empty when the schedule did not apply)
 * @param target what the binary runs on
 * @param module the module's name (the task's kernel name)
 * @param source the printed kernel source (C with its harness, CUDA C, OpenCL C, Java); null when
 *     the candidate failed before printing
 * @param binary the C harness executable, the cubin, the OpenCL C source (UTF-8; the driver builds
 *     it when loaded) or a jar of the Java kernel class; null when there is none
 * @param kernels the module's kernels with their launch geometry
 * @param inputs how many of {@code params} are inputs (the rest are outputs)
 * @param params the kernels' tensors: the operator's inputs, then its outputs
 * @param temporaries buffers between GPU kernels, passed after {@code params} (one dimension each)
 * @param failure how the build failed ({@code INVALID}, {@code COMPILE_ERROR}), or null
 * @param error why it failed, or empty
 */
public record BuildResult(
    Configuration config,
    List<String> trace,
    Target target,
    String module,
    String source,
    byte[] binary,
    List<KernelLaunch> kernels,
    int inputs,
    List<TensorSpec> params,
    List<TensorSpec> temporaries,
    Measurement.Status failure,
    String error) {
  public BuildResult {
    Objects.requireNonNull(config, "config");
    Objects.requireNonNull(target, "target");
    trace = List.copyOf(trace);
    kernels = List.copyOf(kernels);
    params = List.copyOf(params);
    temporaries = List.copyOf(temporaries);
    error = error == null ? "" : error;
  }

  /** A candidate that failed to build. */
  public static BuildResult failed(
      Configuration config,
      List<String> trace,
      Target target,
      String module,
      Measurement.Status status,
      String error) {
    return new BuildResult(
        config, trace, target, module, null, null, List.of(), 0, List.of(), List.of(), status,
        error);
  }

  /** Whether it built: a binary and no failure (a printed candidate has its source only). */
  public boolean ok() {
    return failure == null && binary != null;
  }

  /** This candidate failed at {@code status} for {@code why}, its source kept. */
  public BuildResult fail(Measurement.Status status, String why) {
    return new BuildResult(
        config,
        trace,
        target,
        module,
        source,
        null,
        kernels,
        inputs,
        params,
        temporaries,
        status,
        why);
  }

  /** This candidate with another source and no binary yet: what {@link Builder#compile} takes. */
  public BuildResult withSource(String newSource) {
    return new BuildResult(
        config,
        trace,
        target,
        module,
        newSource,
        null,
        kernels,
        inputs,
        params,
        temporaries,
        null,
        "");
  }

  /** This candidate with its binary. */
  public BuildResult withBinary(byte[] bytes) {
    return new BuildResult(
        config,
        trace,
        target,
        module,
        source,
        bytes,
        kernels,
        inputs,
        params,
        temporaries,
        null,
        "");
  }

  /** The failed trial this build is (only when it failed). */
  public Measurement measurement() {
    if (ok()) {
      throw new IllegalStateException("candidate " + config + " built; it has no failure");
    }
    return failure == null
        ? Measurement.failed(config, Measurement.Status.COMPILE_ERROR, trace, "not compiled")
        : Measurement.failed(config, failure, trace, error);
  }

  /** As a JSON object ({@link Json}); the binary base64-encoded. */
  public Map<String, Object> toJson() {
    Map<String, Object> j = new LinkedHashMap<>();
    j.put("config", new TreeMap<>(config.values()));
    j.put("trace", trace);
    j.put("target", target.name());
    j.put("module", module);
    j.put("source", source);
    j.put("binary", binary == null ? null : Base64.getEncoder().encodeToString(binary));
    j.put("kernels", kernels.stream().map(KernelLaunch::toJson).toList());
    j.put("inputs", inputs);
    j.put("params", params.stream().map(TensorSpec::toJson).toList());
    j.put("temporaries", temporaries.stream().map(TensorSpec::toJson).toList());
    j.put("failure", failure == null ? null : failure.name());
    j.put("error", error);
    return j;
  }

  /** Reads {@link #toJson}'s object back. */
  public static BuildResult fromJson(Object o) {
    Map<?, ?> j = (Map<?, ?>) o;
    Map<String, Integer> values = new TreeMap<>();
    ((Map<?, ?>) j.get("config"))
        .forEach((k, v) -> values.put((String) k, ((Number) v).intValue()));
    String bin = (String) j.get("binary");
    String failure = (String) j.get("failure");
    return new BuildResult(
        Configuration.of(values),
        strings(j.get("trace")),
        Target.valueOf((String) j.get("target")),
        (String) j.get("module"),
        (String) j.get("source"),
        bin == null ? null : Base64.getDecoder().decode(bin),
        ((List<?>) j.get("kernels")).stream().map(KernelLaunch::fromJson).toList(),
        ((Number) j.get("inputs")).intValue(),
        ((List<?>) j.get("params")).stream().map(TensorSpec::fromJson).toList(),
        ((List<?>) j.get("temporaries")).stream().map(TensorSpec::fromJson).toList(),
        failure == null ? null : Measurement.Status.valueOf(failure),
        (String) j.get("error"));
  }

  static List<String> strings(Object o) {
    return ((List<?>) o).stream().map(x -> (String) x).toList();
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof BuildResult b && Json.line(toJson()).equals(Json.line(b.toJson()));
  }

  @Override
  public int hashCode() {
    return Json.line(toJson()).hashCode();
  }

  @Override
  public String toString() {
    return "BuildResult["
        + target
        + " "
        + module
        + " "
        + config
        + (ok() ? "" : " " + failure)
        + "]";
  }
}
