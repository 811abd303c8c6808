package dev.kernelgen.bench;

import dev.kernelgen.measure.Modules;
import dev.kernelgen.runtime.cpu.CpuIsa;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The machine a benchmark ran on, from {@code /proc/cpuinfo}: the CPU's model name and its x86 ISA
 * level (AVX-512, AVX2 or baseline), which decides how wide the C kernels' vectors are.
 */
public record CpuInfo(String model, String isa, int processors) {
  /** This machine; "unknown" where {@code /proc/cpuinfo} is not there (not Linux). */
  public static CpuInfo detect() {
    List<String> lines;
    try {
      lines = Files.readAllLines(Path.of("/proc/cpuinfo"));
    } catch (IOException | RuntimeException e) {
      lines = List.of();
    }
    return parse(lines, Runtime.getRuntime().availableProcessors());
  }

  /** The first {@code model name} and {@code flags} lines of a {@code /proc/cpuinfo}. */
  static CpuInfo parse(List<String> cpuinfo, int processors) {
    String model = null;
    Set<String> flags = null;
    for (String line : cpuinfo) {
      int colon = line.indexOf(':');
      if (colon < 0) {
        continue;
      }
      String key = line.substring(0, colon).trim();
      String value = line.substring(colon + 1).trim();
      if (model == null && key.equals("model name")) {
        model = value;
      } else if (flags == null && key.equals("flags")) {
        flags = Set.of(value.split("\\s+"));
      }
    }
    return new CpuInfo(
        model == null ? "unknown (" + System.getProperty("os.arch") + ")" : model,
        flags == null ? "unknown" : isa(flags),
        processors);
  }

  /** x86-64-v4 (AVX-512 F/BW/DQ/VL), v3 (AVX2 with FMA), else the baseline. */
  static String isa(Set<String> flags) {
    if (flags.containsAll(Set.of("avx512f", "avx512bw", "avx512dq", "avx512vl"))) {
      return "AVX-512";
    }
    if (flags.containsAll(Set.of("avx2", "fma"))) {
      return "AVX2";
    }
    return "baseline";
  }

  /** One line for the top of a report, with the level the benchmark's C kernels run at. */
  public String line() {
    return "cpu: "
        + model
        + ", ISA level "
        + isa
        + ", "
        + processors
        + " processors; C kernels at "
        + cLevel();
  }

  /**
   * The level the benchmarks' own C libraries are compiled for ({@code Modules.cLibrary}): the cap
   * of {@code -Dkernelgen.cpu.maxIsa} where it is below this CPU's, else this CPU's psABI level
   * (the library the runtime loads), {@code -march=native} only off the psABI levels.
   */
  public static String cLevel() {
    if (CpuIsa.cappedLevel().isPresent()) {
      return CpuIsa.cappedLevel().get() + " (capped by -D" + CpuIsa.MAX_ISA_PROPERTY + ")";
    }
    return Modules.libraryLevel()
        .map(l -> "-march=" + l + " (the runtime's library)")
        .orElse("-march=native (" + CpuIsa.machineLevelName() + ")");
  }

  /** The fields as a JSON object. */
  public Map<String, Object> toJson() {
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("cpu_model", model);
    m.put("isa", isa);
    m.put("processors", processors);
    m.put("c_kernels_at", cLevel());
    return m;
  }
}
