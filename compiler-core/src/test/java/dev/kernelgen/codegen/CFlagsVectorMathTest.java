package dev.kernelgen.codegen;

import static dev.kernelgen.te.TE.FLOAT32;
import static dev.kernelgen.te.TE.compute;
import static dev.kernelgen.te.TE.placeholder;
import static dev.kernelgen.te.TE.sqrt;
import static org.assertj.core.api.Assertions.assertThat;

import dev.kernelgen.annotations.Target;
import dev.kernelgen.lower.Lower;
import dev.kernelgen.schedule.Schedule;
import dev.kernelgen.spec.OperatorDef;
import dev.kernelgen.te.Tensor;
import dev.kernelgen.tir.PrimFunc;
import dev.kernelgen.topi.DefaultSchedules;
import dev.kernelgen.topi.DepthwiseSchedules;
import dev.kernelgen.topi.Nn;
import dev.kernelgen.topi.Padding;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The default C flags let gcc use what the kernels are written for: a multiply-add is one FMA
 * instruction ({@code -std=c11} alone turns contraction off: no {@code vfmadd} at all), and a loop
 * that takes a square root is vectorized ({@code sqrtf} may set errno unless {@code
 * -fno-math-errno}: it stayed a scalar call, and its loop, an epilogue's {@code expf} included,
 * scalar), and a row copy stays a vectorized loop ({@code -fno-tree-loop-distribute-patterns}: else
 * gcc's generic tuning makes it an inline {@code rep movsq}).
 */
class CFlagsVectorMathTest {
  @TempDir Path tmp;

  @Test
  void aGeneratedBatchNormLoopIsVectorizedWithFusedMultiplyAdds() throws Exception {
    NativeToolchain tc = NativeToolchain.fromEnvironment();
    Assumptions.assumeTrue(tc.findCc().isPresent(), "no C compiler on PATH: skipped");
    Assumptions.assumeTrue(objdumpPresent(), "objdump (binutils) not on PATH: skipped");
    // Batch norm's inference step, as the conv + bn + swish sample writes it.
    Tensor x = placeholder("X", FLOAT32, 64, 1024);
    Tensor mean = placeholder("Mean", FLOAT32, 1024);
    Tensor var = placeholder("Var", FLOAT32, 1024);
    Tensor gamma = placeholder("Gamma", FLOAT32, 1024);
    Tensor beta = placeholder("Beta", FLOAT32, 1024);
    Tensor y =
        compute(
            "Bn",
            x.shape(),
            (i, j) ->
                x.at(i, j)
                    .sub(mean.at(j))
                    .div(sqrt(var.at(j).add(1e-5)))
                    .mul(gamma.at(j))
                    .add(beta.at(j)));
    OperatorDef op = OperatorDef.of(List.of(x, mean, var, gamma, beta), y);
    Schedule s = DefaultSchedules.cpu(op);
    PrimFunc f = Lower.lower(s, "bn", op.args(), Target.C, null);
    String source = CCodegen.generate(List.of(f), "bn");
    Path lib = tmp.resolve("libbn.so");
    tc.compileSharedLibrary(source, lib, "x86-64-v3");
    String asm = run("objdump", "-d", "--no-show-raw-insn", lib.toString());
    assertThat(asm).as("a multiply-add contracted into an FMA").contains("vfmadd");
    assertThat(asm).as("the square root vectorized").contains("vsqrtps");
    assertThat(asm).as("no scalar sqrtf call").doesNotContain("<sqrtf@plt>");
  }

  @Test
  void rowCopiesStayVectorizedLoopsNotRepStringInstructions() throws Exception {
    NativeToolchain tc = NativeToolchain.fromEnvironment();
    Assumptions.assumeTrue(tc.findCc().isPresent(), "no C compiler on PATH: skipped");
    Assumptions.assumeTrue(objdumpPresent(), "objdump (binutils) not on PATH: skipped");
    // The seed's depthwise convolution: each task copies its padded plane row by row, and the
    // plain convolution copies its row sums to the output.
    Tensor in = placeholder("Input", FLOAT32, 1, 64, 96, 96);
    Tensor filter = placeholder("Filter", FLOAT32, 64, 1, 3, 3);
    Tensor conv = Nn.depthwiseConv2dNchw(in, filter, 1, 1, new Padding(1, 1, 1, 1), 1);
    PrimFunc f =
        Lower.lower(
            DepthwiseSchedules.cpu(conv, conv, 0), "dw", List.of(in, filter, conv), Target.C, null);
    Path lib = tmp.resolve("libdw.so");
    tc.compileSharedLibrary(CCodegen.generate(List.of(f), "dw"), lib, "x86-64-v3");
    String asm = run("objdump", "-d", "--no-show-raw-insn", lib.toString());
    assertThat(asm).as("the copies vectorized").contains("vmovups");
    assertThat(asm)
        .as("no rep movs / rep stos (slow to start on short rows)")
        .doesNotContain("rep ");
  }

  private static boolean objdumpPresent() {
    try {
      run("objdump", "--version");
      return true;
    } catch (IOException | InterruptedException e) {
      return false;
    }
  }

  private static String run(String... cmd) throws IOException, InterruptedException {
    Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
    String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    if (p.waitFor() != 0) {
      throw new IOException(String.join(" ", cmd) + " failed: " + out);
    }
    return out;
  }
}
