package dev.kernelgen.scratch;

import static dev.kernelgen.te.TE.*;

import dev.kernelgen.annotations.Target;
import dev.kernelgen.autosched.AutoScheduler;
import dev.kernelgen.codegen.CudaCodegen;
import dev.kernelgen.lower.Lower;
import dev.kernelgen.lower.SplitHostDevice;
import dev.kernelgen.schedule.Schedule;
import dev.kernelgen.te.Tensor;
import dev.kernelgen.topi.Linalg;
import dev.kernelgen.topi.OpSchedules;
import java.util.List;
import org.junit.jupiter.api.Test;

class ScratchPrintTest {
  @Test
  void print() throws Exception {
    String op = System.getProperty("scratch.op", "matmul");
    int n = Integer.getInteger("scratch.n", 2048);
    Tensor c;
    if (op.equals("matmul")) {
      Tensor a = placeholder("a", FLOAT32, n, n);
      Tensor b = placeholder("b", FLOAT32, n, n);
      c = Linalg.matmul(a, b);
    } else {
      Tensor in = placeholder("Input", FLOAT32, n, 64, 56, 56);
      Tensor f = placeholder("Filter", FLOAT32, 64, 64, 3, 3);
      c =
          dev.kernelgen.topi.Conv.conv2dNchw(
              in, f, 1, 1, new dev.kernelgen.topi.Padding(1, 1, 1, 1), 1);
    }
    var cfg =
        AutoScheduler.untunedConfig(
            Target.CUDA,
            List.of(c),
            dev.kernelgen.autosched.SketchRules.defaults(),
            new dev.kernelgen.autosched.AnalyticPredictor());
    Schedule s = AutoScheduler.untuned(Target.CUDA, List.of(c));
    StringBuilder dump = new StringBuilder();
    var ks =
        SplitHostDevice.split(
                Lower.lower(
                    s,
                    "k_" + op,
                    OpSchedules.args(s),
                    Target.CUDA,
                    x -> dump.append(x).append("\n")))
            .kernels();
    java.nio.file.Files.writeString(java.nio.file.Path.of("/tmp/scratch-ir.txt"), dump.toString());
    String out = "// " + cfg + "\n" + CudaCodegen.generate(ks, "m");
    java.nio.file.Files.writeString(
        java.nio.file.Path.of(System.getProperty("scratch.out", "/tmp/scratch.cu")), out);
  }
}
