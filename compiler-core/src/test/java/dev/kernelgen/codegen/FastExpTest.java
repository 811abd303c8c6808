package dev.kernelgen.codegen;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_FLOAT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;
import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.SymbolLookup;
import java.lang.invoke.MethodHandle;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * {@code kg_exp_f32} in a vectorized loop, compiled with the default flags at each x86-64 level:
 * its error over a sweep of the floats whose exp is a normal float, its special values, and (in the
 * disassembly) that the loop is vectorized: without {@code -fno-trapping-math} gcc left the clamp's
 * compares as branches below AVX-512, and the whole loop scalar (the scalar remainder loop is there
 * either way).
 */
class FastExpTest {
  private static final String SOURCE =
      """
      #include <stdint.h>
      %s
      void exp_all(const float* restrict x, float* restrict y, int64_t n) {
        #pragma omp simd
        for (int64_t i = 0; i < n; ++i) {
          y[i] = kg_exp_f32(x[i]);
        }
      }
      """
          .formatted(FastExp.HELPER);

  @ParameterizedTest
  @ValueSource(strings = {"x86-64-v2", "x86-64-v3", "x86-64-v4"})
  void isWithinOneAndAQuarterUlpOfExpAndVectorized(String level, @TempDir Path tmp)
      throws Throwable {
    NativeToolchain tc = NativeToolchain.fromEnvironment();
    Assumptions.assumeTrue(tc.findCc().isPresent(), "no C compiler on PATH: skipped");
    Path lib = tmp.resolve("libexp.so");
    tc.compileSharedLibrary(SOURCE, lib, level);

    String asm = disassembly(lib, "exp_all");
    if (asm != null) {
      String width =
          level.equals("x86-64-v2") ? "%xmm" : level.equals("x86-64-v3") ? "%ymm" : "%zmm";
      assertThat(asm).as("the loop vectorized at " + level).containsPattern("mulps\\s.*" + width);
      assertThat(asm)
          .as("the clamp vectorized at " + level)
          .containsPattern("(minps|maxps|blendvps|cmp\\w*ps)\\s.*" + width);
    }

    Assumptions.assumeTrue(runs(level), "this CPU cannot run " + level + " code: accuracy skipped");
    // Every 997th float from exp's smallest normal result to its largest, and the special values.
    int neg = Float.floatToRawIntBits(87.33f);
    int pos = Float.floatToRawIntBits(88.72f);
    int step = 997;
    int n = neg / step + pos / step + 2;
    float[] special = {
      Float.NEGATIVE_INFINITY,
      -1000f,
      -88f,
      0f,
      -0f,
      1e-8f,
      88.73f,
      89f,
      1000f,
      Float.POSITIVE_INFINITY,
      Float.NaN
    };
    try (Arena arena = Arena.ofConfined()) {
      MemorySegment x = arena.allocate(JAVA_FLOAT, n + special.length);
      MemorySegment y = arena.allocate(JAVA_FLOAT, n + special.length);
      int k = 0;
      for (int b = 0; b <= neg; b += step) {
        x.setAtIndex(JAVA_FLOAT, k++, Float.intBitsToFloat(b | 0x80000000));
      }
      for (int b = 0; b <= pos; b += step) {
        x.setAtIndex(JAVA_FLOAT, k++, Float.intBitsToFloat(b));
      }
      for (float s : special) {
        x.setAtIndex(JAVA_FLOAT, k++, s);
      }
      MethodHandle exp =
          Linker.nativeLinker()
              .downcallHandle(
                  SymbolLookup.libraryLookup(lib, Arena.global()).find("exp_all").orElseThrow(),
                  FunctionDescriptor.ofVoid(ADDRESS, ADDRESS, JAVA_LONG));
      exp.invokeExact(x, y, (long) k);

      double worst = 0;
      float worstAt = 0;
      for (int i = 0; i < k - special.length; i++) {
        float v = x.getAtIndex(JAVA_FLOAT, i);
        double e = Math.exp(v);
        if (e < 0x1p-125 || e > Float.MAX_VALUE) {
          continue;
        }
        double ulps = Math.abs(y.getAtIndex(JAVA_FLOAT, i) - e) / Math.ulp((float) e);
        if (ulps > worst) {
          worst = ulps;
          worstAt = v;
        }
      }
      assertThat(worst).as("largest error in ulp (at x = " + worstAt + ")").isLessThan(1.25);
      float[] got = new float[special.length];
      for (int i = 0; i < special.length; i++) {
        got[i] = y.getAtIndex(JAVA_FLOAT, k - special.length + i);
      }
      assertThat(got)
          .containsExactly(
              0f,
              0f,
              0f,
              1f,
              1f,
              1f,
              Float.POSITIVE_INFINITY,
              Float.POSITIVE_INFINITY,
              Float.POSITIVE_INFINITY,
              Float.POSITIVE_INFINITY,
              Float.NaN);
    }
  }

  /** The function's disassembly, or null where objdump is missing. */
  static String disassembly(Path lib, String function) throws Exception {
    Process p;
    try {
      p =
          new ProcessBuilder("objdump", "-d", "--no-show-raw-insn", lib.toString())
              .redirectErrorStream(true)
              .start();
    } catch (IOException e) {
      return null;
    }
    String all = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    p.waitFor();
    Matcher m =
        Pattern.compile("<" + function + ">:\\n(.*?)(\\n\\n|$)", Pattern.DOTALL).matcher(all);
    assertThat(m.find()).as(function + " in the disassembly").isTrue();
    return m.group(1);
  }

  /** Whether this CPU runs code of an x86-64 level (from /proc/cpuinfo's flags). */
  static boolean runs(String level) throws IOException {
    Path cpuinfo = Path.of("/proc/cpuinfo");
    if (!Files.exists(cpuinfo) || !System.getProperty("os.arch").equals("amd64")) {
      return false;
    }
    String flags =
        Files.readAllLines(cpuinfo).stream()
            .filter(l -> l.startsWith("flags"))
            .findFirst()
            .orElse("");
    return switch (level) {
      case "x86-64-v2" -> flags.contains(" sse4_2");
      case "x86-64-v3" -> flags.contains(" avx2") && flags.contains(" fma");
      default ->
          flags.contains(" avx512f") && flags.contains(" avx512bw") && flags.contains(" avx512vl");
    };
  }
}
