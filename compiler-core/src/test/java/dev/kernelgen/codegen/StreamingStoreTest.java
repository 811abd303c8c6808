package dev.kernelgen.codegen;

import static dev.kernelgen.te.TE.FLOAT32;
import static dev.kernelgen.te.TE.placeholder;
import static org.assertj.core.api.Assertions.assertThat;

import dev.kernelgen.annotations.Target;
import dev.kernelgen.autosched.AutoScheduler;
import dev.kernelgen.lower.Lower;
import dev.kernelgen.schedule.Schedule;
import dev.kernelgen.te.Tensor;
import dev.kernelgen.testing.CKernels;
import dev.kernelgen.tir.PrimFunc;
import dev.kernelgen.topi.OpSchedules;
import dev.kernelgen.topi.Reduction;
import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A large output written once in whole rows (here softmax's quotient into a 32 MiB output) is
 * stored with non-temporal stores where the ISA has them and the row is aligned, else with the
 * plain vectorized loop; a small output keeps ordinary stores. Both paths equal a reference.
 */
class StreamingStoreTest {
  private static final int ROWS = 2048;
  private static final int COLS = 4096;

  private static PrimFunc softmax(int rows) {
    Tensor out = Reduction.softmax(placeholder("X", FLOAT32, rows, COLS), 1);
    Schedule s = AutoScheduler.untuned(Target.C, List.of(out));
    return Lower.lower(s, "softmax", OpSchedules.args(s), Target.C, null);
  }

  @Test
  void onlyAnOutputLargerThanTheCachesIsStreamed() {
    assertThat(CCodegen.generate(List.of(softmax(ROWS)), "m")).contains("kg_stream_f32(&Softmax[");
    assertThat(CCodegen.generate(List.of(softmax(64)), "m")).doesNotContain("kg_stream_f32");
  }

  @Test
  void alignedAndUnalignedOutputsEqualTheReference() {
    PrimFunc f = softmax(ROWS);
    CKernels k = CKernels.load(List.of(f));
    float[] x = new float[ROWS * COLS];
    Random r = new Random(7);
    for (int i = 0; i < x.length; i++) {
      x[i] = (float) (r.nextGaussian() * 3);
    }
    float[] want = new float[x.length];
    for (int i = 0; i < ROWS; i++) {
      double max = Double.NEGATIVE_INFINITY;
      for (int j = 0; j < COLS; j++) {
        max = Math.max(max, x[i * COLS + j]);
      }
      double sum = 0;
      for (int j = 0; j < COLS; j++) {
        sum += Math.exp(x[i * COLS + j] - max);
      }
      for (int j = 0; j < COLS; j++) {
        want[i * COLS + j] = (float) (Math.exp(x[i * COLS + j] - max) / sum);
      }
    }
    long bytes = 4L * x.length;
    try (Arena arena = Arena.ofConfined()) {
      MemorySegment in = arena.allocate(bytes, 64);
      MemorySegment.copy(x, 0, in, ValueLayout.JAVA_FLOAT, 0, x.length);
      MemorySegment block = arena.allocate(bytes + 64, 64);
      // At the start of the block the rows are aligned (streamed); 4 bytes in, none is (plain).
      for (long offset : new long[] {0, 4}) {
        MemorySegment out = block.asSlice(offset, bytes);
        out.fill((byte) 0);
        k.invoke("softmax", List.of(in, out));
        float[] got = out.toArray(ValueLayout.JAVA_FLOAT);
        for (int i = 0; i < got.length; i++) {
          if (Math.abs(got[i] - want[i]) > 1e-6 + 1e-4 * want[i]) {
            throw new AssertionError(
                "offset " + offset + ", element " + i + ": " + got[i] + " != " + want[i]);
          }
        }
      }
    }
  }

  @Test
  void everyIsaLevelCompilesItsOwnStreamingStore(@TempDir Path dir)
      throws IOException, InterruptedException {
    String source = CCodegen.generate(List.of(softmax(ROWS)), "m");
    NativeToolchain tc = NativeToolchain.fromEnvironment();
    // x86-64-v2: SSE's movntps; v3: AVX's on ymm registers; v4: AVX-512's on zmm.
    List<String[]> levels =
        List.of(
            new String[] {"x86-64-v2", "movntps %xmm"},
            new String[] {"x86-64-v3", "vmovntps %ymm"},
            new String[] {"x86-64-v4", "vmovntps %zmm"});
    for (String[] level : levels) {
      Path lib = dir.resolve(level[0] + ".so");
      tc.compileSharedLibrary(source, lib, level[0]);
      Process p =
          new ProcessBuilder("objdump", "-d", lib.toString()).redirectErrorStream(true).start();
      String asm = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
      assertThat(p.waitFor()).isZero();
      assertThat(asm).as(level[0]).contains(level[1]);
    }
  }
}
