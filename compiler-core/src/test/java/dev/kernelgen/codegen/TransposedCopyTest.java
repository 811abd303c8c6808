package dev.kernelgen.codegen;

import static dev.kernelgen.te.TE.FLOAT32;
import static dev.kernelgen.te.TE.INT32;
import static dev.kernelgen.te.TE.compute;
import static dev.kernelgen.te.TE.placeholder;
import static dev.kernelgen.te.TE.shape;
import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;
import static org.assertj.core.api.Assertions.assertThat;

import dev.kernelgen.annotations.Target;
import dev.kernelgen.autosched.AutoScheduler;
import dev.kernelgen.lower.Lower;
import dev.kernelgen.schedule.Schedule;
import dev.kernelgen.te.DType;
import dev.kernelgen.te.Tensor;
import dev.kernelgen.testing.Check;
import dev.kernelgen.tir.PrimFunc;
import dev.kernelgen.topi.Conv;
import dev.kernelgen.topi.OpSchedules;
import dev.kernelgen.topi.Padding;
import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.SymbolLookup;
import java.lang.invoke.MethodHandle;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A loop nest that copies a block transposed is one call of {@code kg_transpose_32} in C (tiles
 * transposed in registers: 16 x 16 with AVX-512, 8 x 8 with AVX, 4 x 4 with SSE), whose copy equals
 * the loops' element for element at every ISA level this CPU runs and in the portable C (as on
 * aarch64), ragged edges included; so are the weight panels of a packed convolution.
 */
class TransposedCopyTest {
  /** {@code B[b][i][j] = X[b][j][i]}, unscheduled: the naive loops. */
  private static PrimFunc transpose(String name, DType t, int batch, int rows, int cols) {
    Tensor x = placeholder("X", t, batch, cols, rows);
    Tensor out = compute("B", shape(batch, rows, cols), (b, i, j) -> x.at(b, j, i));
    Schedule s = Schedule.create(out);
    return Lower.lower(s, name, List.of(x, out), Target.C, null);
  }

  @Test
  void aTransposeOfAtLeastSixteenBySixteenIsOneCallOfTheTiledCopy() {
    assertThat(CCodegen.generate(List.of(transpose("k", FLOAT32, 1, 37, 53)), "m"))
        .contains("kg_transpose_32(&B[0], 53, &X[0], 37, 53, 37);");
    // With a batch axis, a call per matrix; below 16 along a side, the loops stay.
    assertThat(CCodegen.generate(List.of(transpose("k", FLOAT32, 3, 20, 45)), "m"))
        .contains("kg_transpose_32(&B[");
    assertThat(CCodegen.generate(List.of(transpose("k", FLOAT32, 1, 8, 300)), "m"))
        .doesNotContain("kg_transpose_32(&");
  }

  @Test
  void everyIsaLevelCopiesEveryElement(@TempDir Path tmp) throws Throwable {
    NativeToolchain tc = NativeToolchain.fromEnvironment();
    Assumptions.assumeTrue(tc.findCc().isPresent(), "no C compiler on PATH: skipped");
    String nativeLevel = tc.nativeIsaLevel();
    List<String> levels = new ArrayList<>();
    for (String level : List.of("x86-64-v2", "x86-64-v3", "x86-64-v4")) {
      levels.add(level);
      if (level.equals(nativeLevel)) {
        break;
      }
    }
    Assumptions.assumeTrue(
        levels.contains(nativeLevel), "this CPU runs no x86-64 ISA level: " + nativeLevel);
    // Sides that are and are not multiples of 16, 8 and 4; int32 as well as float32.
    int[][] cases = {
      {1, 37, 53}, {1, 16, 16}, {1, 100, 129}, {1, 300, 17}, {3, 20, 45}, {1, 64, 33}
    };
    List<PrimFunc> funcs = new ArrayList<>();
    for (int c = 0; c < cases.length; c++) {
      DType t = c == cases.length - 1 ? INT32 : FLOAT32;
      funcs.add(transpose("t" + c, t, cases[c][0], cases[c][1], cases[c][2]));
    }
    String source = CCodegen.generate(funcs, "m");
    // The portable tiles (aarch64's, and any ISA without SSE): the vector ISAs' macros undefined.
    levels.add("portable");
    for (String level : levels) {
      Path lib = tmp.resolve(level + ".so");
      if (level.equals("portable")) {
        String undefined = "#undef __SSE2__\n#undef __AVX__\n#undef __AVX512F__\n";
        tc.compileSharedLibrary(undefined + source, lib, "x86-64-v2");
      } else {
        tc.compileSharedLibrary(source, lib, level);
      }
      SymbolLookup symbols = SymbolLookup.libraryLookup(lib, Arena.global());
      for (int c = 0; c < cases.length; c++) {
        int batch = cases[c][0], rows = cases[c][1], cols = cases[c][2];
        MethodHandle k =
            Linker.nativeLinker()
                .downcallHandle(
                    symbols.find("t" + c).orElseThrow(),
                    FunctionDescriptor.of(JAVA_LONG, ADDRESS, ADDRESS));
        int n = batch * rows * cols;
        int[] x = new Random(c).ints(n).toArray(); // bit patterns: NaNs must move untouched too
        try (Arena arena = Arena.ofConfined()) {
          MemorySegment xm = arena.allocateFrom(JAVA_INT, x);
          MemorySegment bm = arena.allocate(JAVA_INT, n);
          assertThat((long) k.invokeExact(xm, bm)).isZero();
          for (int b = 0; b < batch; b++) {
            for (int i = 0; i < rows; i++) {
              for (int j = 0; j < cols; j++) {
                int got = bm.getAtIndex(JAVA_INT, (b * rows + i) * cols + j);
                int want = x[(b * cols + j) * rows + i];
                if (got != want) {
                  throw new AssertionError(
                      "%s, case %d, B[%d][%d][%d]: %08x != %08x"
                          .formatted(level, c, b, i, j, got, want));
                }
              }
            }
          }
        }
      }
    }
  }

  @Test
  void aPackedConvolutionsWeightPanelsAreTiledCopiesAndItEqualsTheOracle() {
    // Small planes, many channels: the packed tiles run in parallel, each packing its panel of
    // weights [co][ci][3][3] to [ci][3][3][co's tile]; 48 output channels leave a ragged tile.
    for (int[] sh : new int[][] {{64, 7, 64}, {40, 7, 48}, {32, 9, 32}}) {
      Tensor x = placeholder("X", FLOAT32, 1, sh[0], sh[1], sh[1]);
      Tensor w = placeholder("W", FLOAT32, sh[2], sh[0], 3, 3);
      Tensor y = Conv.conv2dNchw(x, w, 1, 1, new Padding(1, 1, 1, 1), 1);
      Schedule s = AutoScheduler.untuned(Target.C, List.of(y));
      if (sh[2] == 64) {
        PrimFunc f = Lower.lower(s, "conv", OpSchedules.args(s), Target.C, null);
        assertThat(CCodegen.generate(List.of(f), "m")).contains("kg_transpose_32(&W_local[");
      }
      Check.check(s, Map.of());
    }
  }
}
