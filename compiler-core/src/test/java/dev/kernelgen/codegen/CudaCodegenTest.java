package dev.kernelgen.codegen;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.kernelgen.diag.UserError;
import dev.kernelgen.te.Buffer;
import dev.kernelgen.te.DType;
import dev.kernelgen.te.FloatImm;
import dev.kernelgen.te.IntImm;
import dev.kernelgen.te.MemoryScope;
import dev.kernelgen.te.Var;
import dev.kernelgen.tir.Allocate;
import dev.kernelgen.tir.ForKind;
import dev.kernelgen.tir.PrimFunc;
import dev.kernelgen.tir.Store;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;

class CudaCodegenTest {
  static final String REVERSE_BLOCKS =
      """
      extern "C" __global__ void __launch_bounds__(64) reverse_blocks(\
      const float* __restrict__ A, float* __restrict__ B, int n) {
        A = (const float*)__builtin_assume_aligned(A, 16);
        B = (float*)__builtin_assume_aligned(B, 16);
        const int i_outer = (int)blockIdx.x;
        __shared__ __align__(16) float A_shared[64];
        const int i_inner = (int)threadIdx.x;
        if (((i_outer * 64) + i_inner) < n) {
          A_shared[i_inner] = A[(i_outer * 64) + i_inner];
        }
        __syncthreads();
        const int i_inner_1 = (int)threadIdx.x;
        if (((i_outer * 64) + i_inner_1) < n) {
          B[(i_outer * 64) + i_inner_1] = A_shared[63 - i_inner_1];
        }
        __syncthreads();
        const int k = (int)threadIdx.x;
        if (k < 32) {
          A_shared[k] = A_shared[0];
        }
      }
      """;

  @Test
  void printsThreadBindingsSharedMemoryAndBarriers() {
    assertThat(CudaCodegen.generate(List.of(Fixtures.reverseBlocks()), "rev"))
        .isEqualTo(
            """
            // kernelgen module rev: generated CUDA, do not edit.

            __device__ __forceinline__ int kg_floordiv_i32(int a, int b) {
              int q = a / b;
              int r = a - q * b;
              return q - (int) ((r != 0) & ((r ^ b) < 0));
            }

            """
                + REVERSE_BLOCKS);
  }

  @Test
  void printsVectorAdd() {
    assertThat(CudaCodegen.generate(List.of(Fixtures.vadd()), "vec"))
        .endsWith(
            """
            extern "C" __global__ void __launch_bounds__(1) vadd(const float* __restrict__ A, \
            const float* __restrict__ B, float* __restrict__ C, int n) {
              A = (const float*)__builtin_assume_aligned(A, 16);
              B = (const float*)__builtin_assume_aligned(B, 16);
              C = (float*)__builtin_assume_aligned(C, 16);
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
  void launchGeometryTakesTheLargestExtentPerTag() {
    LaunchGeometry g = LaunchGeometry.of(Fixtures.reverseBlocks());
    Var n = Fixtures.reverseBlocks().scalars().get(0);
    assertThat(g.gridX().show()).isEqualTo("floordiv((n + 63), 64)");
    assertThat(g.blockX()).isEqualTo(IntImm.of(64));
    assertThat(g.gridY()).isEqualTo(IntImm.of(1));
    assertThat(g.threadsPerBlock()).hasValue(64);
    PrimFunc f = Fixtures.reverseBlocks();
    long[] dims = LaunchGeometry.of(f).evaluate(java.util.Map.of(f.scalars().get(0), 1000L));
    assertThat(dims).containsExactly(16, 1, 1, 64, 1, 1);
    assertThatThrownBy(() -> g.evaluate(java.util.Map.of(n, 1L)))
        .isInstanceOf(UserError.class)
        .hasMessageContaining("needs the value of dim n");
  }

  @Test
  void symbolicExtentsThatDifferLaunchTheirMaximumAndAreGuarded() {
    Var n = new Var("n");
    Var m = new Var("m");
    Buffer a = Fixtures.param("A", DType.FLOAT32, n);
    Var t1 = new Var("t");
    Var t2 = new Var("t");
    var body =
        dev.kernelgen.tir.Seq.of(
            Fixtures.loop(
                t1,
                IntImm.of(0),
                n,
                ForKind.THREAD_BINDING,
                "threadIdx.y",
                new Store(a, t1, FloatImm.f32(1))),
            Fixtures.loop(
                t2,
                IntImm.of(0),
                m,
                ForKind.THREAD_BINDING,
                "threadIdx.y",
                new Store(a, t2, FloatImm.f32(2))));
    PrimFunc f = new PrimFunc("two", List.of(a), List.of(n, m), body);
    LaunchGeometry g = LaunchGeometry.of(f);
    assertThat(g.blockY().show()).isEqualTo("max(n, m)");
    assertThat(g.threadsPerBlock()).isEmpty();
    assertThat(g.evaluate(java.util.Map.of(n, 5L, m, 9L))).containsExactly(1, 1, 1, 1, 9, 1);
    assertThat(CudaCodegen.generate(List.of(f), "m"))
        .contains(
            """
            extern "C" __global__ void two(float* __restrict__ A, int n, int m) {
              A = (float*)__builtin_assume_aligned(A, 16);
              const int t = (int)threadIdx.y;
              if (t < n) {
                A[t] = 1.0f;
              }
              const int t_1 = (int)threadIdx.y;
              if (t_1 < m) {
                A[t_1] = 2.0f;
              }
            }
            """);
  }

  @Test
  void sharedArraysNeedAConstantSize() {
    Var n = new Var("n");
    Buffer a = Fixtures.param("A", DType.FLOAT32, n);
    Buffer s = new Buffer("S", DType.FLOAT32, MemoryScope.SHARED, List.of());
    PrimFunc f =
        new PrimFunc(
            "dyn",
            List.of(a),
            List.of(n),
            new Allocate(s, n, new Store(s, IntImm.of(0), FloatImm.f32(0))));
    assertThatThrownBy(() -> CudaCodegen.generate(List.of(f), "m"))
        .isInstanceOf(UserError.class)
        .hasMessageContaining("buffer S (shared) in kernel dyn has size n");
  }

  @Test
  void nvccCompilesTheKernelsToPtxAndCubin() {
    NativeToolchain tc = NativeToolchain.fromEnvironment();
    Assumptions.assumeTrue(
        tc.findNvcc().isPresent(), "nvcc not found on PATH or in /usr/local/cuda/bin: skipped");
    String src =
        CudaCodegen.generate(
            List.of(Fixtures.vadd(), Fixtures.floorDivMod(), Fixtures.reverseBlocks()), "all");
    String ptx = tc.compilePtx(src, "compute_90");
    assertThat(ptx)
        .contains(".target sm_90")
        .contains(".entry reverse_blocks")
        .contains(".entry floor_div_mod")
        .contains("bar.sync")
        .contains(".shared");
    byte[] cubin = tc.compileCubin(src, "sm_90");
    // An ELF file.
    assertThat(new String(cubin, 1, 3, StandardCharsets.US_ASCII)).isEqualTo("ELF");
  }
}
