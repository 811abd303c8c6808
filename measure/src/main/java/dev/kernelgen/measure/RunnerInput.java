package dev.kernelgen.measure;

import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;

/**
 * What a {@link Runner} needs to measure one candidate: the build, the directory of its reference
 * data ({@link ReferenceData}: the inputs as {@code 0.bin, 1.bin, ...}, the oracle's outputs as
 * {@code expected0.bin, ...}), the timing protocol, how many launches one sample times ({@code 0}:
 * the runner's own choice, the C harness batching short calls to 500 µs), the tolerance of the
 * comparison, the longest the run may take and environment variables of a child process.
 * Serializable ({@link #toJson}); a runner on another host needs the data directory copied there.
 */
public record RunnerInput(
    BuildResult build,
    Path data,
    TimingProtocol timing,
    int callsPerSample,
    double tolerance,
    long timeoutSeconds,
    Map<String, String> environment) {
  public RunnerInput {
    Objects.requireNonNull(build, "build");
    Objects.requireNonNull(data, "data");
    Objects.requireNonNull(timing, "timing");
    environment = Map.copyOf(environment);
  }

  public Map<String, Object> toJson() {
    Map<String, Object> j = new LinkedHashMap<>();
    j.put("build", build.toJson());
    j.put("data", data.toString());
    j.put("timing", timing.toJson());
    j.put("callsPerSample", callsPerSample);
    j.put("tolerance", tolerance);
    j.put("timeoutSeconds", timeoutSeconds);
    j.put("environment", new TreeMap<>(environment));
    return j;
  }

  public static RunnerInput fromJson(Object o) {
    Map<?, ?> j = (Map<?, ?>) o;
    Map<String, String> env = new TreeMap<>();
    ((Map<?, ?>) j.get("environment")).forEach((k, v) -> env.put((String) k, (String) v));
    return new RunnerInput(
        BuildResult.fromJson(j.get("build")),
        Path.of((String) j.get("data")),
        TimingProtocol.fromJson((Map<?, ?>) j.get("timing")),
        ((Number) j.get("callsPerSample")).intValue(),
        ((Number) j.get("tolerance")).doubleValue(),
        ((Number) j.get("timeoutSeconds")).longValue(),
        env);
  }
}
