package dev.kernelgen.runtime.cpu;

import dev.kernelgen.runtime.DeviceException;
import dev.kernelgen.runtime.KernelBinary;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.Set;

/**
 * The ISA level of this machine's CPU, from its own feature bits, and the choice of the best C
 * library for it. The levels are the x86-64 psABI's: {@code x86-64} (the baseline), {@code
 * x86-64-v2} (SSE4.2, POPCNT), {@code x86-64-v3} (AVX2, FMA, BMI2) and {@code x86-64-v4} (AVX-512
 * F/BW/CD/DQ/VL). On Linux the features are the {@code flags} of {@code /proc/cpuinfo}, which the
 * kernel lists only where the OS supports them (AVX state saved); elsewhere an x86-64 CPU counts as
 * the baseline.
 *
 * <p>On aarch64 the library of level {@code armv8-a} runs (built with a cross compiler, {@code
 * kernels.aarch64Cc}); x86-64 libraries are never chosen there, nor Arm ones on x86-64.
 *
 * <p>The system property {@value #MAX_ISA_PROPERTY} caps the level ({@code x86-64-v3} on an AVX-512
 * machine runs the AVX2 library), for tests and for users who want it. A library built for {@code
 * native} (the build machine's CPU) is taken only when nothing else fits and no cap is set: what it
 * needs is not known.
 */
public final class CpuIsa {
  /** System property capping the ISA level of the C library chosen ({@code x86-64-v3}). */
  public static final String MAX_ISA_PROPERTY = "kernelgen.cpu.maxIsa";

  /** The x86-64 psABI levels, lowest first. */
  public static final List<String> X86_64_LEVELS =
      List.of("x86-64", "x86-64-v2", "x86-64-v3", "x86-64-v4");

  /** A library compiled for the build machine's own CPU. */
  public static final String NATIVE = KernelBinary.C.Library.NATIVE;

  private static final List<Set<String>> LEVEL_FLAGS =
      List.of(
          Set.of(),
          Set.of("cx16", "lahf_lm", "popcnt", "pni", "sse4_1", "sse4_2", "ssse3"),
          Set.of("avx", "avx2", "bmi1", "bmi2", "f16c", "fma", "abm", "movbe", "xsave"),
          Set.of("avx512f", "avx512bw", "avx512cd", "avx512dq", "avx512vl"));

  private CpuIsa() {}

  private static final class Machine {
    static final int LEVEL = detect();
  }

  /**
   * The highest psABI level whose features are all in {@code flags}: 1 for the baseline, up to 4; 0
   * when {@code x86} is false.
   */
  static int level(Set<String> flags, boolean x86) {
    if (!x86) {
      return 0;
    }
    int level = 1;
    for (int l = 2; l <= 4; l++) {
      if (!flags.containsAll(LEVEL_FLAGS.get(l - 1))) {
        break;
      }
      level = l;
    }
    return level;
  }

  /** This machine's level (see {@link #level}), read once. */
  public static int machineLevel() {
    return Machine.LEVEL;
  }

  /**
   * This machine's level as the psABI names it, {@link #AARCH64_BASELINE} on aarch64, or {@code
   * none (os.arch)} elsewhere.
   */
  public static String machineLevelName() {
    int l = machineLevel();
    if (l == 0) {
      return isAarch64(System.getProperty("os.arch", ""))
          ? AARCH64_BASELINE + " (aarch64)"
          : "none (" + System.getProperty("os.arch") + ")";
    }
    return X86_64_LEVELS.get(l - 1);
  }

  /**
   * The aarch64 level every 64-bit Arm CPU runs (Neon included); a library of a later Arm level
   * ({@code armv8.2-a}) is not chosen, since this CPU's extensions are not read.
   */
  public static final String AARCH64_BASELINE = "armv8-a";

  static boolean isAarch64(String osArch) {
    String a = osArch.toLowerCase(Locale.ROOT);
    return a.equals("aarch64") || a.equals("arm64");
  }

  /**
   * The library level an aarch64 machine runs among {@code available}: {@link #AARCH64_BASELINE},
   * else empty (the cap names x86-64 levels and does not apply).
   */
  static Optional<String> chooseAarch64(Collection<String> available) {
    return available.contains(AARCH64_BASELINE) ? Optional.of(AARCH64_BASELINE) : Optional.empty();
  }

  private static int detect() {
    String arch = System.getProperty("os.arch", "").toLowerCase(Locale.ROOT);
    boolean x86 = arch.equals("amd64") || arch.equals("x86_64");
    if (!x86) {
      return 0;
    }
    Path cpuinfo = Path.of("/proc/cpuinfo");
    try (var lines = Files.lines(cpuinfo)) {
      Optional<String> flags = lines.filter(l -> l.startsWith("flags")).findFirst();
      if (flags.isEmpty()) {
        return 1;
      }
      String v = flags.get().substring(flags.get().indexOf(':') + 1).strip();
      return level(Set.of(v.split("\\s+")), true);
    } catch (IOException | RuntimeException e) {
      return 1; // not Linux, or /proc hidden: the baseline every x86-64 CPU has
    }
  }

  /**
   * The psABI level the runtime runs this machine at when {@link #MAX_ISA_PROPERTY} caps it below
   * the machine's own, or empty when no cap is set (or the cap is not lower): what a benchmark that
   * compiles its own library targets so that a capped run is one.
   *
   * @throws DeviceException when the cap is not a psABI level
   */
  public static Optional<String> cappedLevel() {
    String cap = System.getProperty(MAX_ISA_PROPERTY);
    if (cap == null || cap.isBlank() || machineLevel() == 0) {
      return Optional.empty();
    }
    int c = levelOf(cap.strip());
    if (c == 0) {
      throw new DeviceException(MAX_ISA_PROPERTY + "=" + cap + " is not one of " + X86_64_LEVELS);
    }
    return c < machineLevel() ? Optional.of(X86_64_LEVELS.get(c - 1)) : Optional.empty();
  }

  /** The psABI level (1-4) of a level name; 0 for a name that is not one. */
  static int levelOf(String name) {
    return X86_64_LEVELS.indexOf(name) + 1;
  }

  /**
   * The best of {@code available} for a CPU of {@code machine} level under a cap (a level name, or
   * null), or empty when none fits.
   *
   * @throws IllegalArgumentException when the cap is not a psABI level
   */
  static Optional<String> choose(Collection<String> available, int machine, String cap) {
    int max = machine;
    if (cap != null && !cap.isBlank()) {
      int c = levelOf(cap.strip());
      if (c == 0) {
        throw new IllegalArgumentException(
            MAX_ISA_PROPERTY + "=" + cap + " is not one of " + X86_64_LEVELS);
      }
      max = Math.min(max, c);
    }
    String best = null;
    int bestLevel = 0;
    for (String a : available) {
      int l = levelOf(a);
      if (l > bestLevel && l <= max) {
        best = a;
        bestLevel = l;
      }
    }
    if (best == null && available.contains(NATIVE) && (cap == null || cap.isBlank())) {
      best = NATIVE;
    }
    return Optional.ofNullable(best);
  }

  /**
   * The library of {@code c} this machine runs best, under {@link #MAX_ISA_PROPERTY}.
   *
   * @throws DeviceException naming the CPU's level, the cap and the levels present when none fits
   */
  public static KernelBinary.C.Library select(KernelBinary.C c) {
    String cap = System.getProperty(MAX_ISA_PROPERTY);
    List<String> levels = new ArrayList<>();
    for (KernelBinary.C.Library l : c.libraries()) {
      levels.add(l.isaLevel());
    }
    Optional<String> chosen;
    try {
      chosen =
          isAarch64(System.getProperty("os.arch", ""))
              ? chooseAarch64(levels)
              : choose(levels, machineLevel(), cap);
    } catch (IllegalArgumentException e) {
      throw new DeviceException(e.getMessage(), e);
    }
    String level =
        chosen.orElseThrow(
            () ->
                new DeviceException(
                    "no C library of "
                        + c.name()
                        + " runs on this CPU: it supports "
                        + machineLevelName()
                        + (cap == null || cap.isBlank()
                            ? ""
                            : ", capped at " + cap + " by -D" + MAX_ISA_PROPERTY)
                        + "; the libraries are for "
                        + levels));
    return c.libraries().stream().filter(l -> l.isaLevel().equals(level)).findFirst().orElseThrow();
  }
}
