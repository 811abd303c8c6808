package dev.kernelgen.codegen;

import static dev.kernelgen.te.TE.INT32;
import static dev.kernelgen.te.TE.compute;
import static dev.kernelgen.te.TE.placeholder;
import static dev.kernelgen.te.TE.shape;
import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;
import static org.assertj.core.api.Assertions.assertThat;

import dev.kernelgen.annotations.Target;
import dev.kernelgen.lower.Lower;
import dev.kernelgen.schedule.Schedule;
import dev.kernelgen.te.Tensor;
import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.SymbolLookup;
import java.lang.invoke.MethodHandle;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@link CheckedDivision}: a C kernel's floor division and modulo by values read from a tensor
 * return status -1 at a zero divisor instead of raising SIGFPE (which killed the JVM), divide
 * {@code INT_MIN} by -1 without trapping, and otherwise give Java's {@code Math.floorDiv} and
 * {@code floorMod}; a constant divisor keeps the plain helper.
 */
class CheckedDivisionTest {
  private static final int N = 9;

  @Test
  void aZeroDivisorReadFromATensorIsAStatusNotACrash(@TempDir Path tmp) throws Throwable {
    NativeToolchain tc = NativeToolchain.fromEnvironment();
    Assumptions.assumeTrue(tc.findCc().isPresent(), "no C compiler on PATH: skipped");
    Tensor x = placeholder("X", INT32, N);
    Tensor d = placeholder("D", INT32, N);
    Tensor q = compute("Q", shape(N), i -> x.at(i).floordiv(d.at(i)));
    Tensor r = compute("R", shape(N), i -> x.at(i).floormod(d.at(i)));
    Schedule s = Schedule.create(q, r);
    String c =
        CCodegen.generate(List.of(Lower.lower(s, "k", List.of(x, d, q, r), Target.C, null)), "m");
    assertThat(c).contains("kg_floordiv_i32_checked(").contains("kg_floormod_i32_checked(");
    Path lib = tmp.resolve("libdiv.so");
    tc.compileSharedLibrary(c, lib, "x86-64-v2");
    MethodHandle k =
        Linker.nativeLinker()
            .downcallHandle(
                SymbolLookup.libraryLookup(lib, Arena.global()).find("k").orElseThrow(),
                FunctionDescriptor.of(JAVA_LONG, ADDRESS, ADDRESS, ADDRESS, ADDRESS));
    int[] xs = {7, -7, 7, -7, 5, Integer.MIN_VALUE, Integer.MIN_VALUE, 0, 12};
    int[] ds = {2, 2, -2, -2, 1, -1, 3, 5, 4};
    try (Arena arena = Arena.ofConfined()) {
      MemorySegment xm = arena.allocateFrom(JAVA_INT, xs);
      MemorySegment qm = arena.allocate(JAVA_INT, N);
      MemorySegment rm = arena.allocate(JAVA_INT, N);
      long status = (long) k.invokeExact(xm, arena.allocateFrom(JAVA_INT, ds), qm, rm);
      assertThat(status).isZero();
      for (int i = 0; i < N; i++) {
        int expected = ds[i] == -1 ? -xs[i] : Math.floorDiv(xs[i], ds[i]);
        assertThat(qm.getAtIndex(JAVA_INT, i))
            .as("%d floordiv %d", xs[i], ds[i])
            .isEqualTo(expected);
        assertThat(rm.getAtIndex(JAVA_INT, i))
            .as("%d floormod %d", xs[i], ds[i])
            .isEqualTo(Math.floorMod(xs[i], ds[i]));
      }
      int[] zero = ds.clone();
      zero[4] = 0;
      long failed = (long) k.invokeExact(xm, arena.allocateFrom(JAVA_INT, zero), qm, rm);
      assertThat(failed).as("the status at a zero divisor").isEqualTo(-1L);
    }
  }

  @Test
  void aConstantDivisorKeepsThePlainHelper() {
    Tensor x = placeholder("X", INT32, N);
    Tensor q = compute("Q", shape(N), i -> x.at(i).floordiv(-3));
    Schedule s = Schedule.create(q);
    String c = CCodegen.generate(List.of(Lower.lower(s, "k", List.of(x, q), Target.C, null)), "m");
    assertThat(c).contains("kg_floordiv_i32(").doesNotContain("_checked");
  }

  @Test
  void gpuKernelsDividingByDataTakeAStatusWord() {
    // A zero divisor is undefined in OpenCL C and CUDA: PoCL gave a value without a word.
    Tensor x = placeholder("X", INT32, N);
    Tensor d = placeholder("D", INT32, N);
    Tensor q = compute("Q", shape(N), i -> x.at(i).floordiv(d.at(i)));
    Tensor c = compute("C", shape(N), i -> x.at(i).floormod(7));
    NativeToolchain tc = NativeToolchain.fromEnvironment();
    for (Target t : List.of(Target.CUDA, Target.OPENCL)) {
      for (Tensor out : List.of(q, c)) {
        List<Tensor> ins = out == q ? List.of(x, d) : List.of(x);
        var op = dev.kernelgen.spec.OperatorDef.of(ins, out);
        Schedule s =
            dev.kernelgen.topi.DefaultSchedules.forTarget(
                t, op, dev.kernelgen.spec.Knobs.defaults());
        List<Tensor> args = new java.util.ArrayList<>(ins);
        args.add(out);
        dev.kernelgen.lower.LoweredModule m =
            Lower.lowerModule(s, "k", args, t, dev.kernelgen.lower.IndexWidth.WIDE, null);
        String src =
            t == Target.CUDA
                ? CudaCodegen.generate(m.functions(), "m")
                : OpenClCodegen.generate(m.functions(), "m");
        if (out == c) {
          assertThat(m.temporaries()).as(t + " constant divisor").isEmpty();
          assertThat(src).doesNotContain("_checked");
          continue;
        }
        assertThat(m.temporaries()).as(t.toString()).hasSize(1);
        assertThat(m.temporaries().get(0).buffer().name()).isEqualTo(KernelStatus.STATUS);
        assertThat(src).as(t.toString()).contains("kg_floordiv_i32_checked(");
        if (t == Target.CUDA && tc.findNvcc().isPresent()) {
          assertThat(tc.compilePtx(src, "sm_80")).contains(".entry k");
        }
      }
    }
  }
}
