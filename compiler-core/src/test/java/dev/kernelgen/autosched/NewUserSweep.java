package dev.kernelgen.autosched;

import static dev.kernelgen.te.TE.exp;

import dev.kernelgen.annotations.Target;
import dev.kernelgen.codegen.CudaCodegen;
import dev.kernelgen.codegen.NativeToolchain;
import dev.kernelgen.codegen.OpenClCodegen;
import dev.kernelgen.lower.IndexWidth;
import dev.kernelgen.lower.Lower;
import dev.kernelgen.lower.SplitHostDevice;
import dev.kernelgen.schedule.Schedule;
import dev.kernelgen.te.Expr;
import dev.kernelgen.te.FloatImm;
import dev.kernelgen.te.Tensor;
import dev.kernelgen.te.Var;
import dev.kernelgen.testing.Check;
import dev.kernelgen.tir.PrimFunc;
import dev.kernelgen.topi.GpuCheck;
import dev.kernelgen.topi.OpSchedules;
import java.io.File;
import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.EnumSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Operators a new user writes with the DSL alone, listed by the {@code NewUser*Test} classes (each
 * a static {@code cases()}): the rules' untuned pick for each target against the oracle, one test
 * per target so that a failure names it. C runs on the IR interpreter and through cc, Java as
 * generated; CUDA's and OpenCL's picks run on the IR interpreter (each block's threads
 * concurrently), and their sources go through nvcc to PTX and through clang's OpenCL C syntax
 * check, skipped (saying which tool is missing) where it is not installed. Where dims are symbolic,
 * the kernels of both index widths are checked.
 */
abstract class NewUserSweep {
  /** An operator: its outputs, and values for its symbolic dims (none where it has none). */
  record Op(String name, List<Tensor> outputs, Map<Var, Long> dims) {
    @Override
    public String toString() {
      return name;
    }
  }

  static Op op(String name, Tensor out) {
    return new Op(name, List.of(out), Map.of());
  }

  static Expr sigmoid(Expr x) {
    return new FloatImm(x.dtype(), 1).div(exp(new FloatImm(x.dtype(), 0).sub(x)).add(1.0));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("cases")
  void cPick(Op op) {
    Schedule s = AutoScheduler.untuned(Target.C, op.outputs());
    Check.check(
        s,
        OpSchedules.args(s),
        op.dims(),
        EnumSet.of(Check.Backend.IR, Check.Backend.C),
        1e-4,
        1e-4);
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("cases")
  void javaPick(Op op) {
    Schedule s = AutoScheduler.untuned(Target.JAVA, op.outputs());
    Check.check(s, OpSchedules.args(s), op.dims(), EnumSet.of(Check.Backend.JAVA), 1e-4, 1e-4);
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("cases")
  void cudaPickOnTheInterpreter(Op op) {
    GpuCheck.check(AutoScheduler.untuned(Target.CUDA, op.outputs()), Target.CUDA, op.dims());
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("cases")
  void openclPickOnTheInterpreter(Op op) {
    GpuCheck.check(AutoScheduler.untuned(Target.OPENCL, op.outputs()), Target.OPENCL, op.dims());
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("cases")
  void cudaPickCompilesToPtx(Op op) {
    NativeToolchain tc = NativeToolchain.fromEnvironment();
    Assumptions.assumeTrue(
        tc.findNvcc().isPresent(),
        "nvcc not found on PATH, in $CUDA_HOME/bin or /usr/local/cuda/bin: the CUDA source is not"
            + " compiled");
    String src = CudaCodegen.generate(kernels(op, Target.CUDA), "newuser");
    try {
      tc.compilePtx(src, "compute_90");
    } catch (RuntimeException e) {
      throw new AssertionError("nvcc failed on\n" + src, e);
    }
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("cases")
  void openclPickPassesClang(Op op) throws IOException, InterruptedException {
    Optional<Path> clang = Clang.FOUND;
    Assumptions.assumeTrue(
        clang.isPresent(),
        "clang not found on PATH or in /usr/lib/llvm-*/bin: the OpenCL source is not"
            + " syntax-checked");
    String src = OpenClCodegen.generate(kernels(op, Target.OPENCL), "newuser");
    Path f = Files.createTempFile("newuser", ".cl");
    try {
      Files.writeString(f, src);
      Process p =
          new ProcessBuilder(
                  clang.get().toString(),
                  "-x",
                  "cl",
                  "-cl-std=CL1.2",
                  "-Xclang",
                  "-finclude-default-header",
                  "-fsyntax-only",
                  f.toString())
              .redirectErrorStream(true)
              .start();
      String out = new String(p.getInputStream().readAllBytes());
      if (p.waitFor() != 0) {
        throw new AssertionError("clang (OpenCL C) failed:\n" + out + "\n---- source\n" + src);
      }
    } finally {
      Files.deleteIfExists(f);
    }
  }

  /** The index widths the driver builds kernels for: both where dims are symbolic. */
  static List<IndexWidth> widths(Map<Var, Long> dims) {
    return dims.isEmpty() ? List.of(IndexWidth.WIDE) : List.of(IndexWidth.NARROW, IndexWidth.WIDE);
  }

  /** The device kernels of the untuned pick for {@code target}, of every index width. */
  private static List<PrimFunc> kernels(Op op, Target target) {
    Schedule s = AutoScheduler.untuned(target, op.outputs());
    List<PrimFunc> ks = new ArrayList<>();
    for (IndexWidth w : widths(op.dims())) {
      String name = "k_" + op.name() + "_" + w;
      ks.addAll(
          SplitHostDevice.split(Lower.lower(s, name, OpSchedules.args(s), target, w, null))
              .kernels());
    }
    return ks;
  }

  /** clang for the OpenCL C syntax check: on PATH, else the newest {@code /usr/lib/llvm-N}. */
  private static final class Clang {
    static final Optional<Path> FOUND = find();

    private static Optional<Path> find() {
      List<Path> candidates = new ArrayList<>();
      String path = System.getenv("PATH");
      if (path != null) {
        for (String d : path.split(File.pathSeparator)) {
          if (!d.isEmpty()) {
            candidates.add(Path.of(d, "clang"));
          }
        }
      }
      List<Path> llvm = new ArrayList<>();
      try (DirectoryStream<Path> dirs = Files.newDirectoryStream(Path.of("/usr/lib"), "llvm-*")) {
        dirs.forEach(llvm::add);
      } catch (IOException e) {
        // no /usr/lib: PATH alone
      }
      llvm.sort(Comparator.comparingInt(Clang::version).reversed());
      llvm.forEach(d -> candidates.add(d.resolve("bin").resolve("clang")));
      return candidates.stream()
          .filter(p -> Files.isRegularFile(p) && Files.isExecutable(p))
          .findFirst();
    }

    /** N of {@code llvm-N}; -1 where it is not a number. */
    private static int version(Path llvmDir) {
      try {
        return Integer.parseInt(llvmDir.getFileName().toString().substring("llvm-".length()));
      } catch (NumberFormatException e) {
        return -1;
      }
    }
  }
}
