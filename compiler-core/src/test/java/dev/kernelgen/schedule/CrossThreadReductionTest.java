package dev.kernelgen.schedule;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.kernelgen.annotations.Target;
import dev.kernelgen.codegen.CudaCodegen;
import dev.kernelgen.codegen.NativeToolchain;
import dev.kernelgen.codegen.OpenClCodegen;
import dev.kernelgen.diag.UserError;
import dev.kernelgen.lower.Lower;
import dev.kernelgen.lower.SplitHostDevice;
import dev.kernelgen.te.DType;
import dev.kernelgen.te.IterVar;
import dev.kernelgen.te.Reducer;
import dev.kernelgen.te.TE;
import dev.kernelgen.te.Tensor;
import dev.kernelgen.tir.PrimFunc;
import dev.kernelgen.topi.GpuCheck;
import dev.kernelgen.topi.Nn;
import dev.kernelgen.topi.Reduction;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * The cross-thread reduction primitive: a reduce axis bound to {@code threadIdx.x} is accumulated
 * per thread and then all-reduced across the block, so that the consumer's loop over the row, bound
 * to the same threads, reads the whole result. Lowered kernels run on the loop-IR interpreter
 * (threads of a block run concurrently, barriers are real) against the oracle, on ragged shapes;
 * the CUDA is compiled by nvcc where it is installed.
 */
class CrossThreadReductionTest {
  /** A block per row, {@code threads} threads spread over the row and over each reduction. */
  static Schedule blockPerRow(Tensor out, int threads, String... reductions) {
    Schedule s = inlined(Schedule.create(out));
    Stage o = s.stage(out);
    IterVar i = o.axis(0);
    Stage.Split sj = o.split(o.axis(1), threads);
    o.reorder(i, sj.inner(), sj.outer());
    o.bind(i, ThreadTag.BLOCK_X);
    o.bind(sj.inner(), ThreadTag.THREAD_X);
    for (String name : reductions) {
      Stage r = s.stage(name);
      r.setScope("local");
      r.computeAt(o, sj.inner());
      Stage.Split sk = r.split(r.reduceAxis(0), threads);
      r.bind(sk.inner(), ThreadTag.THREAD_X);
    }
    return s;
  }

  /** {@code s} with its injective stages inlined (softmax's exponential). */
  static Schedule inlined(Schedule s) {
    for (Stage st : s.stages()) {
      if (!st.isPlaceholder() && !st.isOutput() && !st.hasReduction()) {
        st.computeInline();
      }
    }
    return s;
  }

  static Tensor softmax(long rows, long cols) {
    return Reduction.softmax(TE.placeholder("X", DType.FLOAT32, rows, cols), 1);
  }

  static Tensor layerNorm(long rows, long cols) {
    Tensor x = TE.placeholder("X", DType.FLOAT32, rows, cols);
    Tensor g = TE.placeholder("G", DType.FLOAT32, cols);
    Tensor b = TE.placeholder("B", DType.FLOAT32, cols);
    return Nn.layerNorm(x, g, b, 1, 1e-5);
  }

  @ParameterizedTest
  @CsvSource({"37, 1000, 32", "3, 5, 32", "1, 4097, 64", "4, 100, 24", "2, 64, 64", "5, 33, 1"})
  void softmaxRowsAllReducedAcrossThreadsEqualTheOracle(long rows, long cols, int threads) {
    Schedule s = blockPerRow(softmax(rows, cols), threads, "SoftmaxMax", "SoftmaxExpSum");
    GpuCheck.check(s, Map.of());
  }

  @ParameterizedTest
  @CsvSource({"37, 1000, 32", "3, 5, 32", "1, 4097, 128", "6, 50, 48"})
  void layerNormChainOfReductionsAcrossThreadsEqualsTheOracle(long rows, long cols, int threads) {
    Tensor y = layerNorm(rows, cols);
    Schedule s = Schedule.create(y);
    List<String> reds = new ArrayList<>();
    for (Stage st : s.stages()) {
      if (st.hasReduction()) {
        reds.add(st.name());
      }
    }
    assertThat(reds).hasSize(2);
    GpuCheck.check(blockPerRow(y, threads, reds.toArray(String[]::new)), Map.of());
  }

  @Test
  void theAllReduceIsATreeInSharedMemoryWithBarriers() {
    Schedule s = blockPerRow(softmax(3, 5), 32, "SoftmaxMax", "SoftmaxExpSum");
    String src = cuda(s, "softmax_ct");
    assertThat(src).contains("__shared__ __align__(16) float SoftmaxMax_red[32]");
    assertThat(src).contains("__shared__ __align__(16) float SoftmaxExpSum_red[32]");
    // Per reduction of 32 threads: the slots filled and five halvings, all in the first warp
    // (a warp barrier before each halving), then the total read back by every warp.
    assertThat(count(src, "__syncthreads();")).isEqualTo(2);
    assertThat(count(src, "__syncwarp();")).isEqualTo(10);
    // Of 128 threads: halvings 64 and 32 wait for the whole block, the next five for a warp.
    String wide = cuda(blockPerRow(softmax(3, 300), 128, "SoftmaxMax", "SoftmaxExpSum"), "w");
    assertThat(count(wide, "__syncthreads();")).isEqualTo(6);
    assertThat(count(wide, "__syncwarp();")).isEqualTo(10);
    String cl = OpenClCodegen.generate(kernels(s, "softmax_ct", Target.OPENCL), "m");
    assertThat(cl).contains("__local float SoftmaxMax_red[32]");
    assertThat(cl).contains("barrier(CLK_LOCAL_MEM_FENCE)");
  }

  @Test
  void nvccCompilesCrossThreadReductions() {
    String src = cuda(blockPerRow(softmax(37, 1000), 128, "SoftmaxMax", "SoftmaxExpSum"), "sm");
    NativeToolchain tc = NativeToolchain.fromEnvironment();
    Assumptions.assumeTrue(
        tc.findNvcc().isPresent(), "nvcc not found on PATH or in /usr/local/cuda/bin: skipped");
    assertThat(tc.compilePtx(src, "compute_90")).contains(".entry sm");
  }

  @Test
  void aThreadBoundReduceAxisOutsideAGpuKernelIsAUserError() {
    Schedule s = blockPerRow(softmax(3, 5), 32, "SoftmaxMax", "SoftmaxExpSum");
    assertThatThrownBy(() -> Lower.lower(s, "f", Target.C))
        .isInstanceOf(UserError.class)
        .hasMessageContaining("binds reduce axis")
        .hasMessageContaining("cross-thread reduction, but target C has no GPU threads");
  }

  @Test
  void aCrossThreadReductionMustBeLocalAndInsideTheThreadLoops() {
    Tensor y = softmax(3, 5);
    Schedule s = Schedule.create(y);
    Stage o = s.stage(y);
    o.bind(o.axis(0), ThreadTag.BLOCK_X);
    o.bind(o.axis(1), ThreadTag.THREAD_X);
    Stage r = s.stage("SoftmaxMax");
    r.computeAt(o, o.axis(0));
    r.setScope("local");
    Stage.Split sk = r.split(r.reduceAxis(0), 4);
    r.bind(sk.inner(), ThreadTag.THREAD_X);
    assertThatThrownBy(() -> Lower.lower(s, "f", Target.CUDA))
        .isInstanceOf(UserError.class)
        .hasMessageContaining("must be computed at a loop of its consumer bound to threadIdx.x");
    r.computeAt(o, o.axis(1));
    r.setScope("global");
    assertThatThrownBy(() -> Lower.lower(s, "f", Target.CUDA))
        .isInstanceOf(UserError.class)
        .hasMessageContaining("must be in local scope");
  }

  @Test
  void theReductionsThreadCountMustBeItsConsumers() {
    Tensor y = softmax(3, 100);
    Schedule s = inlined(Schedule.create(y));
    Stage o = s.stage(y);
    Stage.Split sj = o.split(o.axis(1), 64);
    o.reorder(o.axis(0), sj.inner(), sj.outer());
    o.bind(o.axis(0), ThreadTag.BLOCK_X);
    o.bind(sj.inner(), ThreadTag.THREAD_X);
    for (String name : List.of("SoftmaxMax", "SoftmaxExpSum")) {
      Stage r = s.stage(name);
      r.setScope("local");
      r.computeAt(o, sj.inner());
      Stage.Split sk = r.split(r.reduceAxis(0), name.equals("SoftmaxMax") ? 32 : 64);
      r.bind(sk.inner(), ThreadTag.THREAD_X);
    }
    assertThatThrownBy(() -> Lower.lower(s, "f", Target.CUDA))
        .isInstanceOf(UserError.class)
        .hasMessageContaining(
            "cross-thread reduction 'SoftmaxMax' spreads reduce axis 'r1.inner' over 32 threads of"
                + " threadIdx.x, but its consumer 'Softmax' runs 64 on it");
  }

  @Test
  void onlyCommutativeReducersAndThreadIndicesAreAccepted() {
    Tensor x = TE.placeholder("X", DType.FLOAT32, 4, 8);
    IterVar k = TE.reduceAxis(8, "k");
    Reducer first =
        Reducer.of("first", DType.FLOAT32, (a, b) -> a, dev.kernelgen.te.FloatImm.f32(0.0));
    Tensor y = TE.compute("Y", TE.shape(4), i -> TE.reduce(first, x.at(i, k.var()), k));
    Schedule s = Schedule.create(y);
    Stage st = s.stage(y);
    assertThatThrownBy(() -> st.bind(st.reduceAxis(0), ThreadTag.THREAD_X))
        .isInstanceOf(UserError.class)
        .hasMessageContaining("its reducer 'first' is not sum, prod, min or max");
    Schedule s2 = Schedule.create(softmax(3, 5));
    Stage m = s2.stage("SoftmaxMax");
    assertThatThrownBy(() -> m.bind(m.reduceAxis(0), ThreadTag.BLOCK_X))
        .isInstanceOf(UserError.class)
        .hasMessageContaining("can only be bound to a thread index");
  }

  private static int count(String text, String what) {
    return text.split(java.util.regex.Pattern.quote(what), -1).length - 1;
  }

  static List<PrimFunc> kernels(Schedule s, String name, Target t) {
    List<Tensor> args = new ArrayList<>(s.inputs());
    args.addAll(s.outputs());
    return SplitHostDevice.split(Lower.lower(s, name, args, t, null)).kernels();
  }

  static String cuda(Schedule s, String name) {
    return CudaCodegen.generate(kernels(s, name, Target.CUDA), "m");
  }
}
