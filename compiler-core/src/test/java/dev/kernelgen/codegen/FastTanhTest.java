package dev.kernelgen.codegen;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_FLOAT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;
import static org.assertj.core.api.Assertions.assertThat;

import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.SymbolLookup;
import java.lang.invoke.MethodHandle;
import java.nio.file.Path;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * {@code kg_tanh_f32} in a vectorized loop at each x86-64 level: its error over a sweep of the
 * floats up to 20 in magnitude (at most 1.3 ulp, at every level), its special values, and (in the
 * disassembly) that the loop is vectorized.
 */
class FastTanhTest {
  private static final String SOURCE =
      """
      #include <stdint.h>
      %s
      %s
      void tanh_all(const float* restrict x, float* restrict y, int64_t n) {
        #pragma omp simd
        for (int64_t i = 0; i < n; ++i) {
          y[i] = kg_tanh_f32(x[i]);
        }
      }
      """
          .formatted(FastExp.HELPER, FastTanh.HELPER);

  @ParameterizedTest
  @ValueSource(strings = {"x86-64-v2", "x86-64-v3", "x86-64-v4"})
  void isWithinAFewUlpOfTanhAndVectorized(String level, @TempDir Path tmp) throws Throwable {
    NativeToolchain tc = NativeToolchain.fromEnvironment();
    Assumptions.assumeTrue(tc.findCc().isPresent(), "no C compiler on PATH: skipped");
    Path lib = tmp.resolve("libtanh.so");
    tc.compileSharedLibrary(SOURCE, lib, level);
    String asm = FastExpTest.disassembly(lib, "tanh_all");
    if (asm != null) {
      String width =
          level.equals("x86-64-v2") ? "%xmm" : level.equals("x86-64-v3") ? "%ymm" : "%zmm";
      assertThat(asm).as("the loop vectorized at " + level).containsPattern("mulps\\s.*" + width);
    }
    Assumptions.assumeTrue(
        FastExpTest.runs(level), "this CPU cannot run " + level + " code: accuracy skipped");
    // Every 997th float from 0 to 20, both signs, then the special values.
    int top = Float.floatToRawIntBits(20f);
    int step = 997;
    float[] special = {Float.NEGATIVE_INFINITY, -100f, 100f, Float.POSITIVE_INFINITY, Float.NaN};
    int n = 2 * (top / step + 1) + special.length;
    try (Arena arena = Arena.ofConfined()) {
      MemorySegment x = arena.allocate(JAVA_FLOAT, n);
      MemorySegment y = arena.allocate(JAVA_FLOAT, n);
      int k = 0;
      for (int b = 0; b <= top; b += step) {
        x.setAtIndex(JAVA_FLOAT, k++, Float.intBitsToFloat(b));
        x.setAtIndex(JAVA_FLOAT, k++, Float.intBitsToFloat(b | 0x80000000));
      }
      for (float s : special) {
        x.setAtIndex(JAVA_FLOAT, k++, s);
      }
      MethodHandle tanh =
          Linker.nativeLinker()
              .downcallHandle(
                  SymbolLookup.libraryLookup(lib, Arena.global()).find("tanh_all").orElseThrow(),
                  FunctionDescriptor.ofVoid(ADDRESS, ADDRESS, JAVA_LONG));
      tanh.invokeExact(x, y, (long) k);
      double worst = 0;
      float worstAt = 0;
      for (int i = 0; i < k - special.length; i++) {
        float v = x.getAtIndex(JAVA_FLOAT, i);
        double t = Math.tanh(v);
        double ulps = Math.abs(y.getAtIndex(JAVA_FLOAT, i) - t) / Math.ulp((float) t);
        if (ulps > worst) {
          worst = ulps;
          worstAt = v;
        }
      }
      assertThat(worst).as("largest error in ulp (at x = " + worstAt + ")").isLessThan(BOUND);
      float[] got = new float[special.length];
      for (int i = 0; i < special.length; i++) {
        got[i] = y.getAtIndex(JAVA_FLOAT, k - special.length + i);
      }
      assertThat(got).containsExactly(-1f, -1f, 1f, 1f, Float.NaN);
    }
  }

  static final double BOUND = 1.5;
}
