package dev.kernelgen.codegen;

import static org.assertj.core.api.Assertions.assertThat;

import dev.kernelgen.te.Buffer;
import dev.kernelgen.te.DType;
import dev.kernelgen.te.FloatImm;
import dev.kernelgen.te.IntImm;
import dev.kernelgen.te.Load;
import dev.kernelgen.te.TE;
import dev.kernelgen.te.Var;
import dev.kernelgen.tir.For;
import dev.kernelgen.tir.PrimFunc;
import dev.kernelgen.tir.Store;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;

class OpenClCodegenTest {
  @Test
  void hoistsLocalArraysAndMapsThreadIndices() {
    assertThat(OpenClCodegen.generate(List.of(Fixtures.reverseBlocks()), "rev"))
        .isEqualTo(
            """
            // kernelgen module rev: generated OpenCL C, do not edit.

            static inline int kg_floordiv_i32(int a, int b) {
              int q = a / b;
              int r = a - q * b;
              return q - (int) ((r != 0) & ((r ^ b) < 0));
            }

            __kernel void reverse_blocks(__global const float* restrict A, \
            __global float* restrict B, int n) {
              __local float A_shared[64];
              const int i_outer = (int)get_group_id(0);
              const int i_inner = (int)get_local_id(0);
              if (((i_outer * 64) + i_inner) < n) {
                A_shared[i_inner] = A[(i_outer * 64) + i_inner];
              }
              barrier(CLK_LOCAL_MEM_FENCE);
              const int i_inner_1 = (int)get_local_id(0);
              if (((i_outer * 64) + i_inner_1) < n) {
                B[(i_outer * 64) + i_inner_1] = A_shared[63 - i_inner_1];
              }
              barrier(CLK_LOCAL_MEM_FENCE);
              const int k = (int)get_local_id(0);
              if (k < 32) {
                A_shared[k] = A_shared[0];
              }
            }
            """);
  }

  @Test
  void printsVectorAdd() {
    assertThat(OpenClCodegen.generate(List.of(Fixtures.vadd()), "vec"))
        .endsWith(
            """
            __kernel void vadd(__global const float* restrict A, __global const float* restrict B, \
            __global float* restrict C, int n) {
              for (int i_outer = 0; i_outer < kg_floordiv_i32(n + 7, 8); ++i_outer) {
                float T_local[8];
                for (int i_inner = 0; i_inner < 8; ++i_inner) {
                  const int idx = (i_outer * 8) + i_inner;
                  T_local[i_inner] = (idx < n) ? (A[idx] + B[idx]) : 0.0f;
                }
                for (int i_inner_1 = 0; i_inner_1 < 8; ++i_inner_1) {
                  if (((i_outer * 8) + i_inner_1) < n) {
                    C[(i_outer * 8) + i_inner_1] = T_local[i_inner_1] * 2.5f;
                  }
                }
              }
            }
            """);
  }

  @Test
  void doublesEnableFp64AndBoolsAreStoredAsBytes() {
    Var n = new Var("n");
    Buffer a = Fixtures.param("A", DType.FLOAT64, n);
    Buffer m = Fixtures.param("M", DType.BOOL, n);
    Var i = new Var("i");
    var body =
        For.serial(
            i,
            IntImm.of(0),
            n,
            dev.kernelgen.tir.Seq.of(
                new Store(m, i, Load.of(a, i).gt(FloatImm.f64(0.5))),
                new Store(
                    a,
                    i,
                    TE.select(
                        Load.of(m, i),
                        TE.exp(Load.of(a, i)),
                        FloatImm.f64(Double.NEGATIVE_INFINITY)))));
    String src =
        OpenClCodegen.generate(List.of(new PrimFunc("f", List.of(a, m), List.of(n), body)), "m");
    assertThat(src)
        .startsWith(
            "// kernelgen module m: generated OpenCL C, do not edit.\n"
                + "#pragma OPENCL EXTENSION cl_khr_fp64 : enable\n")
        .contains("__kernel void f(__global double* restrict A, __global uchar* restrict M, int n)")
        .contains("M[i] = (uchar)(A[i] > 0.5);")
        .contains("A[i] = (M[i] != 0) ? exp(A[i]) : (-(double)INFINITY);");
    assertThat(OpenClCodegen.generate(List.of(Fixtures.vadd()), "v")).doesNotContain("fp64");
  }

  /** Optional: clang parses OpenCL C when it is installed (PoCL runs the kernels elsewhere). */
  @Test
  void clangAcceptsTheProgram() throws Exception {
    var clang =
        pathDirs().stream().map(d -> d.resolve("clang")).filter(Files::isExecutable).findFirst();
    Assumptions.assumeTrue(
        clang.isPresent(), "clang not found on PATH: OpenCL syntax check skipped");
    Path src = Files.createTempFile("kernelgen", ".cl");
    Files.writeString(
        src,
        OpenClCodegen.generate(
            List.of(Fixtures.vadd(), Fixtures.floorDivMod(), Fixtures.reverseBlocks()), "all"));
    Process p =
        new ProcessBuilder(
                clang.get().toString(),
                "-x",
                "cl",
                "-cl-std=CL1.2",
                "-Xclang",
                "-finclude-default-header",
                "-fsyntax-only",
                src.toString())
            .redirectErrorStream(true)
            .start();
    String out = new String(p.getInputStream().readAllBytes());
    assertThat(p.waitFor()).as(out).isZero();
  }

  private static List<Path> pathDirs() {
    return java.util.Arrays.stream(System.getenv("PATH").split(java.io.File.pathSeparator))
        .filter(d -> !d.isEmpty())
        .map(Path::of)
        .toList();
  }
}
