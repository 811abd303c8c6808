package dev.kernelgen.codegen;

import dev.kernelgen.diag.UserError;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;

/**
 * The x86-64 psABI levels (v2: SSE4.2, v3: AVX2 and FMA, v4: AVX-512) as the C compiler sees them,
 * and the best of a toolchain's levels that this machine's CPU runs: the level tuning measures C
 * kernels at.
 */
final class IsaLevels {
  private IsaLevels() {}

  private static final List<String> ISA_ORDER = List.of("x86-64-v2", "x86-64-v3", "x86-64-v4");

  /** The compiler's predefined macros that each psABI level implies (its and the lower ones'). */
  private static final Map<String, List<String>> ISA_MACROS =
      Map.of(
          "x86-64-v2",
          List.of("__SSE4_2__", "__POPCNT__", "__SSSE3__"),
          "x86-64-v3",
          List.of(
              "__SSE4_2__",
              "__POPCNT__",
              "__SSSE3__",
              "__AVX2__",
              "__FMA__",
              "__BMI2__",
              "__F16C__",
              "__LZCNT__",
              "__MOVBE__"),
          "x86-64-v4",
          List.of(
              "__SSE4_2__",
              "__POPCNT__",
              "__SSSE3__",
              "__AVX2__",
              "__FMA__",
              "__BMI2__",
              "__F16C__",
              "__LZCNT__",
              "__MOVBE__",
              "__AVX512F__",
              "__AVX512BW__",
              "__AVX512CD__",
              "__AVX512DQ__",
              "__AVX512VL__"));

  /** See {@link NativeToolchain#nativeIsaLevel()}. */
  static String nativeLevel(NativeToolchain tc) {
    Path dir = CompilerProcess.tempDir("kernelgen-isa");
    String macros;
    try {
      macros =
          CompilerProcess.run(
              List.of(tc.cc().toString(), "-march=native", "-dM", "-E", "-x", "c", "/dev/null"),
              dir,
              tc.timeoutSeconds());
    } finally {
      CompilerProcess.delete(dir);
    }
    String best = "native";
    for (String level : tc.isaLevels()) {
      List<String> needs = ISA_MACROS.get(level);
      if (needs != null
          && needs.stream().allMatch(m -> macros.contains("#define " + m + " "))
          && (best.equals("native") || ISA_ORDER.indexOf(level) > ISA_ORDER.indexOf(best))) {
        best = level;
      }
    }
    return capped(best, tc.isaLevels(), System.getProperty(MAX_ISA_PROPERTY));
  }

  /**
   * The runtime's cap on the C library's level ({@code dev.kernelgen.runtime.cpu.CpuIsa}'s
   * property): under it, tuning measures at the capped level, as the runtime will run.
   */
  static final String MAX_ISA_PROPERTY = "kernelgen.cpu.maxIsa";

  /** {@code best}, or {@code cap} when it is one of {@code levels} and lower than {@code best}. */
  static String capped(String best, List<String> levels, String cap) {
    if (cap == null || cap.isBlank() || best.equals("native")) {
      return best;
    }
    List<String> psAbi = List.of("x86-64", "x86-64-v2", "x86-64-v3", "x86-64-v4");
    String c = cap.strip();
    int at = psAbi.indexOf(c);
    if (at < 0) {
      throw new UserError(MAX_ISA_PROPERTY + "=" + cap + " is not one of " + psAbi);
    }
    return levels.contains(c) && at < psAbi.indexOf(best) ? c : best;
  }
}
