package dev.kernelgen.autosched;

import static dev.kernelgen.te.TE.FLOAT32;
import static dev.kernelgen.te.TE.compute;
import static dev.kernelgen.te.TE.max;
import static dev.kernelgen.te.TE.placeholder;
import static dev.kernelgen.te.TE.reduceAxis;
import static dev.kernelgen.te.TE.shape;
import static org.assertj.core.api.Assertions.assertThat;

import dev.kernelgen.annotations.Target;
import dev.kernelgen.codegen.CCodegen;
import dev.kernelgen.codegen.CudaCodegen;
import dev.kernelgen.lower.Lower;
import dev.kernelgen.lower.SplitHostDevice;
import dev.kernelgen.schedule.Schedule;
import dev.kernelgen.te.IterVar;
import dev.kernelgen.te.Tensor;
import dev.kernelgen.topi.Nn;
import dev.kernelgen.topi.OpSchedules;
import dev.kernelgen.topi.Padding;
import dev.kernelgen.topi.Pooling;
import dev.kernelgen.tune.Configuration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The untuned pick: deterministic, bounded, fit for the devices ({@link UntunedPickTimeTest}:
 * cheap).
 */
class UntunedPickTest {
  private static String c(List<Tensor> outputs) {
    Schedule s = AutoScheduler.untuned(Target.C, outputs);
    return CCodegen.generate(
        List.of(Lower.lower(s, "k", OpSchedules.args(s), Target.C, null)), "m");
  }

  private static String cuda(List<Tensor> outputs) {
    Schedule s = AutoScheduler.untuned(Target.CUDA, outputs);
    var dm = SplitHostDevice.split(Lower.lower(s, "k", OpSchedules.args(s), Target.CUDA, null));
    return CudaCodegen.generate(dm.kernels(), "m");
  }

  @Test
  void twoPicksGiveByteIdenticalSource() {
    for (Workloads w : Workloads.all()) {
      assertThat(c(w.outputs())).as(w.name()).isEqualTo(c(w.outputs()));
      assertThat(cuda(w.outputs())).as(w.name()).isEqualTo(cuda(w.outputs()));
    }
  }

  @Test
  void picksStayWithinTheStatementBoundAlsoOverSymbolicShapes() {
    // Over symbolic dims every unrolled point of a register tile carries a tail guard: without the
    // bound the climb took this conv's C kernel to 1010 statements, which gcc compiled in 170 s.
    List<Workloads> all = new java.util.ArrayList<>(Workloads.all());
    all.add(Workloads.symbolicConvBnSwish());
    for (Workloads wl : all) {
      for (Target t : List.of(Target.C, Target.CUDA, Target.OPENCL, Target.JAVA)) {
        Schedule s = AutoScheduler.untuned(t, wl.outputs());
        int statements = UntunedPick.statements(Lower.lower(s, "k", OpSchedules.args(s), t, null));
        assertThat(statements).as(wl + " " + t).isLessThanOrEqualTo(UntunedPick.MAX_STATEMENTS);
      }
    }
  }

  @Test
  void gpuPicksLaunchOnEveryCudaDevice() {
    // A pick that stages more than 48 KiB of shared memory, or uses more than 1024 threads, cannot
    // launch: the conv's first pick after its padded input was staged took 598528 bytes.
    List<Workloads> all = new java.util.ArrayList<>(Workloads.all());
    all.add(Workloads.of("conv2d_32x64x56x56", conv2d(32, 64, 56)));
    for (Workloads wl : all) {
      for (Target t : List.of(Target.CUDA, Target.OPENCL)) {
        Schedule s = AutoScheduler.untuned(t, wl.outputs());
        var f = Lower.lower(s, "k", OpSchedules.args(s), t, null);
        assertThat(dev.kernelgen.tune.GpuLimits.cudaDefault().check(f)).as(wl + " " + t).isNull();
      }
    }
  }

  @Test
  void gpuConvolutionPicksStageThePaddedInputInSharedMemory() {
    // The padding is inlined; staging the tensor it defines computes the bounds checks in the
    // load, once per element of the tile, and the inner loop reads shared memory only (the pick
    // read the input from global memory in every multiply-add, 4x slower at batch 32 on an H200).
    for (int batch : new int[] {1, 32}) {
      String src = cuda(List.of(conv2d(batch, 64, 56)));
      assertThat(src)
          .as("batch " + batch)
          .contains("__shared__ __align__(16) float PaddedInput_shared[");
      assertThat(src)
          .as("batch " + batch)
          .contains("__shared__ __align__(16) float Filter_shared[");
      String inner = src.substring(src.indexOf("__syncthreads();"));
      inner =
          inner.substring(inner.indexOf("Conv2d_local["), inner.indexOf("__syncthreads();", 20));
      assertThat(inner).as("the multiply-adds, batch " + batch).doesNotContain("Input[");
    }
  }

  @Test
  void gpuMatmulPickStagesItsTilesForWideLoadsWithoutConflictsAndDoubleBuffersThem() {
    // What took the 2048^3 pick from 617 to 418 us on the H200 (cuBLAS: 342 us).
    String src = cuda(List.of(matmul(2048)));
    // 16-byte aligned tiles, so a register tile's row of 4 words is one 128-bit shared load.
    assertThat(src).contains("__shared__ __align__(16) float A_shared[");
    // A's tile stored k-major with rows of 128 + 4 words: the fetch's stores down a column hit
    // every bank.
    assertThat(src).contains("* 132)");
    // Each thread fetches 4 consecutive words of a row with one 128-bit global load.
    assertThat(src).contains("const float4 kg_v = *(const float4*)&A[");
    assertThat(src).contains("const float4 kg_v = *(const float4*)&B[");
    // Both tiles twice their size, the next step staged in registers, the step's loop unrolled.
    assertThat(src).contains("float A_shared_staged[").contains("float B_shared_staged[");
    assertThat(src).contains("A_shared[2112]").contains("#pragma unroll");
    // Each thread's 8 x 8 registers as 2 x 2 chunks of 4 x 4, 64 apart (virtual threads): the
    // reads of a step are thread * 4 apart, and the tile is fetched once per step, not per chunk.
    assertThat(src).contains("float MatMul_local[64];");
    assertThat(src.split("const float4 kg_v = \\*\\(const float4\\*\\)&A\\[", -1))
        .as("the A fetch: once before the loop, once in it")
        .hasSize(3);
    assertThat(src)
        .containsPattern("B_shared\\[\\(+k_inner \\* 128\\) \\+ \\(\\(\\w+ % 16\\) \\* 4\\)");
  }

  @Test
  void gpuMatmulWithStridedDoubleBufferedTilesOverRaggedEdgesMatchesTheOracle() {
    // 8 x 8 registers on 16 x 16 threads (2 x 2 virtual threads, double-buffered, 128-bit
    // fetches) over a 72 x 136 output and a reduction of 36 (4.5 steps of 8): every tile edge
    // ragged.
    Tensor a = placeholder("A", FLOAT32, 72, 36);
    Tensor b = placeholder("B", FLOAT32, 36, 136);
    Tensor c = dev.kernelgen.topi.Linalg.matmul(a, b);
    java.util.Map<String, Integer> knobs = new java.util.TreeMap<>();
    knobs.put(AutoScheduler.SKETCH, AutoScheduler.RULES);
    knobs.put("MatMul.threads0", 16);
    knobs.put("MatMul.threads1", 16);
    knobs.put("MatMul.reg0", 8);
    knobs.put("MatMul.reg1", 8);
    knobs.put("MatMul.tile_k", 8);
    knobs.put("MatMul.shared", 1);
    Schedule s =
        AutoScheduler.schedule(Target.CUDA, List.of(c), dev.kernelgen.spec.Knobs.configured(knobs));
    assertThat(s.trace().toString()).contains("vthread").contains("double_buffer");
    dev.kernelgen.topi.GpuCheck.check(s, java.util.Map.of());
  }

  @Test
  void theSharedFootprintTheModelSeesIsWhatTheKernelAllocates() {
    for (Workloads wl :
        List.of(
            Workloads.of("conv2d_2x64x56x56", conv2d(2, 64, 56)),
            Workloads.of("grouped_conv_g4_1x128x56x56", groupedConv(128, 4, 56)),
            Workloads.of("matmul_512", matmul(512)))) {
      Configuration pick =
          AutoScheduler.untunedConfig(
              Target.CUDA, wl.outputs(), SketchRules.defaults(), new AnalyticPredictor());
      double noted =
          AutoScheduler.notes(Target.CUDA, wl.outputs(), pick).entrySet().stream()
              .filter(e -> e.getKey().endsWith("/gpu.shared_bytes"))
              .mapToDouble(java.util.Map.Entry::getValue)
              .sum();
      Schedule s =
          AutoScheduler.schedule(
              Target.CUDA, wl.outputs(), dev.kernelgen.spec.Knobs.configured(pick.values()));
      var f = Lower.lower(s, "k", OpSchedules.args(s), Target.CUDA, null);
      long allocated = 0;
      for (var k : SplitHostDevice.split(f).kernels()) {
        allocated += dev.kernelgen.tune.GpuLimits.sharedBytes(k.body());
      }
      assertThat(allocated).as(wl.name()).isPositive();
      assertThat(noted).as(wl.name() + " " + pick).isEqualTo((double) allocated);
    }
  }

  private static Tensor conv2d(int batch, int channels, int side) {
    Tensor in = placeholder("Input", FLOAT32, batch, channels, side, side);
    Tensor f = placeholder("Filter", FLOAT32, channels, channels, 3, 3);
    return dev.kernelgen.topi.Conv.conv2dNchw(in, f, 1, 1, new Padding(1, 1, 1, 1), 1);
  }

  @Test
  void gpuGroupedConvolutionPickStagesThePaddedInputOfItsGroup() {
    // The input channel o / g * g + c: the g outputs of a group read the same inputs, and the
    // tile's channels are one group's (or two's, where the tile straddles them). The pick read
    // the input from global memory in every multiply-add: 64.5 us on an H200, the naive kernel
    // 39.9 us; staged, 25.8 us.
    String src = cuda(List.of(groupedConv(128, 4, 56)));
    assertThat(src).contains("__shared__ __align__(16) float Padded_shared[");
    String inner = src.substring(src.indexOf("__syncthreads();"));
    inner = inner.substring(inner.indexOf("GroupedConv_local["));
    inner = inner.substring(0, inner.indexOf("__syncthreads();"));
    assertThat(inner).as("the multiply-adds").doesNotContain("X[");
    // Tiles of 16 channels over groups of 12 (straddling two) and of 5 and 3 channels, ragged.
    for (int[] g : new int[][] {{48, 4, 9}, {10, 2, 7}, {6, 2, 5}}) {
      dev.kernelgen.topi.GpuCheck.check(
          AutoScheduler.untuned(Target.CUDA, List.of(groupedConv(g[0], g[1], g[2]))),
          java.util.Map.of());
    }
  }

  @Test
  void gpuNormalisationsOverNchwChannelsTakeAThreadPerPixel() {
    // Neighbouring pixels are neighbouring words: a thread per pixel reads its channels coalesced
    // across the warp, where a block per pixel read a sector per channel (the L2 normalisation of
    // [8,64,56,56]: 33.6 us on an H200, the naive kernel 27.7 us; a thread per pixel, 6.5 us).
    Tensor x = placeholder("X", FLOAT32, 8, 64, 56, 56);
    var c = dev.kernelgen.te.TE.reduceAxis(64, "c");
    Tensor l2 =
        dev.kernelgen.te.TE.compute(
            "L2Normalized",
            x.shape(),
            (b, ch, i, j) ->
                x.at(b, ch, i, j)
                    .div(
                        dev.kernelgen.te.TE.sqrt(
                            dev.kernelgen
                                .te
                                .TE
                                .sum(x.at(b, c.var(), i, j).mul(x.at(b, c.var(), i, j)), c)
                                .add(1e-6))));
    for (Tensor out : List.of(l2, dev.kernelgen.topi.Reduction.softmax(x, 1))) {
      String src = cuda(List.of(out));
      assertThat(src).as(out.name()).doesNotContain("__shared__").contains("for (int ");
    }
    // Rows along the contiguous axis keep a block per row.
    Tensor rows = placeholder("R", FLOAT32, 1024, 1024);
    assertThat(cuda(List.of(dev.kernelgen.topi.Reduction.softmax(rows, 1)))).contains("_red[");
  }

  @Test
  void gpuSharedTilesKeepAWindowSlidingAlongTheOutputsInnermostAxisInnermost() {
    // x[b, c, 2t + k - 1] staged for a tile of 2 batches: stored [c][pos][b], neighbouring threads
    // (neighbouring t) read words 4 apart (4-way bank conflicts); stored [c][b][pos], 2 apart
    // (the conv1d + gelu on an H200: 234.5 -> 124.5 us).
    Tensor x = placeholder("X", FLOAT32, 8, 64, 4096);
    Tensor w = placeholder("W", FLOAT32, 128, 64, 3);
    var c = dev.kernelgen.te.TE.reduceAxis(64, "c");
    var k = dev.kernelgen.te.TE.reduceAxis(3, "k");
    Tensor conv =
        dev.kernelgen.te.TE.compute(
            "Conv1d",
            dev.kernelgen.te.TE.shape(8, 128, 2048),
            (b, o, t) -> {
              var at = t.mul(2).add(k.var()).sub(1);
              var in =
                  dev.kernelgen.te.TE.select(at.ge(0).and(at.lt(4096)), x.at(b, c.var(), at), 0.0);
              return dev.kernelgen.te.TE.sum(in.mul(w.at(o, c.var(), k.var())), c, k);
            });
    Schedule s = AutoScheduler.untuned(Target.CUDA, List.of(conv));
    assertThat(s.trace().toString()).contains("s[X.pad.shared].reorder_storage(j, i, k)");
    dev.kernelgen.topi.GpuCheck.check(
        AutoScheduler.untuned(Target.CUDA, List.of(UnseenOperatorsTest.conv1dGelu())),
        java.util.Map.of());
  }

  @Test
  void gpuReductionsThatReuseNoInputTakeAnOutputAThread() {
    // The sum over the batch of [64, 256, 256]: each input element feeds one output, so a
    // register tile only halves the threads (3.3 us on an H200 at 2 outputs a thread, the naive
    // kernel 3.2 us; an output a thread, 3.2 us).
    Tensor x = placeholder("X", FLOAT32, 64, 256, 256);
    var b = dev.kernelgen.te.TE.reduceAxis(64, "b");
    Tensor sum =
        dev.kernelgen.te.TE.compute(
            "BatchSum",
            dev.kernelgen.te.TE.shape(256, 256),
            (i, j) -> dev.kernelgen.te.TE.sum(x.at(b.var(), i, j), b));
    String src = cuda(List.of(sum));
    assertThat(src).contains("float BatchSum_local[1];").doesNotContain("__shared__");
  }

  /** A 3x3 convolution of [1, channels, side, side] in {@code groups} groups, SAME padding. */
  static Tensor groupedConv(int channels, int groups, int side) {
    int per = channels / groups;
    Tensor x = placeholder("X", FLOAT32, 1, channels, side, side);
    Tensor w = placeholder("W", FLOAT32, channels, per, 3, 3);
    Tensor padded =
        dev.kernelgen.te.TE.compute(
            "Padded",
            dev.kernelgen.te.TE.shape(1, channels, side + 2, side + 2),
            (b, ch, i, j) ->
                dev.kernelgen.te.TE.select(
                    i.ge(1).and(i.le(side)).and(j.ge(1)).and(j.le(side)),
                    x.at(b, ch, i.sub(1), j.sub(1)),
                    0.0));
    var c = dev.kernelgen.te.TE.reduceAxis(per, "c");
    var kh = dev.kernelgen.te.TE.reduceAxis(3, "kh");
    var kw = dev.kernelgen.te.TE.reduceAxis(3, "kw");
    return dev.kernelgen.te.TE.compute(
        "GroupedConv",
        dev.kernelgen.te.TE.shape(1, channels, side, side),
        (b, o, i, j) ->
            dev.kernelgen.te.TE.sum(
                padded
                    .at(b, o.floordiv(per).mul(per).add(c.var()), i.add(kh.var()), j.add(kw.var()))
                    .mul(w.at(o, c.var(), kh.var(), kw.var())),
                c,
                kh,
                kw));
  }

  private static Tensor matmul(int n) {
    Tensor a = placeholder("A", FLOAT32, n, n);
    Tensor b = placeholder("B", FLOAT32, n, n);
    return dev.kernelgen.topi.Linalg.matmul(a, b);
  }

  @Test
  void gpuPicksOfReductionsWithLittleReuseFillTheMachineAsTheFloorDoes() {
    // A depthwise filter or a pooling window: 9 steps per output. The pick had taken 4 outputs per
    // thread, 196 threads a block (7 along the row) and the filter staged in shared memory: 50,176
    // threads for [1,64,56,56], and 2.8 us on an H200 against the naive kernel's 1.7 us.
    Tensor in = placeholder("Input", FLOAT32, 1, 64, 56, 56);
    Padding same = Padding.same(56, 56, 3, 3, 1, 1, 1);
    Tensor dw =
        Nn.depthwiseConv2dNchw(in, placeholder("DwFilter", FLOAT32, 64, 1, 3, 3), 1, 1, same, 1);
    Tensor image = placeholder("Image", FLOAT32, 1, 64, 112, 112);
    Tensor pool = Pooling.maxPool2d(image, 3, 3, 2, 2, Padding.same(112, 112, 3, 3, 2, 2, 1));
    for (Tensor out : List.of(dw, pool)) {
      Schedule s = AutoScheduler.untuned(Target.CUDA, List.of(out));
      var m =
          Lower.lowerModule(
              s, "k", OpSchedules.args(s), Target.CUDA, dev.kernelgen.lower.IndexWidth.WIDE, null);
      var g = m.kernels().get(0).geometry();
      long[] e = g.evaluate(java.util.Map.of());
      long threads = e[0] * e[1] * e[2] * e[3] * e[4] * e[5];
      assertThat(threads).as(out.name()).isGreaterThanOrEqualTo(64L * 56 * 56);
      assertThat(CudaCodegen.generate(m.functions(), "m"))
          .as(out.name())
          .doesNotContain("__shared__");
    }
  }

  @Test
  void gpuPicksOfReductionsWithLittleReuseKeepWarpsCoalescedAndReductionTilesWhole() {
    // The seed's fused depthwise [1,256,96,96]: the pick had taken a register tile of 8 along the
    // row (neighbouring threads 8 floats apart: each store instruction 32 sectors for 32 floats)
    // and a reduction tile of 2 over the filter's 3 rows, 28.8 us on an H200 against the naive
    // kernel's 9.0 us.
    Tensor input = placeholder("input", FLOAT32, 1, 256, 96, 96);
    Tensor filter = placeholder("filter", FLOAT32, 256, 1, 3, 3);
    Tensor conv = Nn.depthwiseConv2dNchw(input, filter, 1, 1, new Padding(1, 1, 1, 1), 1);
    Tensor out =
        Nn.relu(
            Nn.scaleShift(
                conv, placeholder("scale", FLOAT32, 256), placeholder("shift", FLOAT32, 256)));
    for (Target t : List.of(Target.CUDA, Target.OPENCL)) {
      Configuration pick =
          AutoScheduler.untunedConfig(
              t, List.of(out), SketchRules.defaults(), new AnalyticPredictor());
      assertThat(pick.values()).as(t.name()).containsEntry(conv.name() + ".reg3", 1);
      assertThat(3 % pick.values().get(conv.name() + ".tile_k")).as(t + " " + pick).isZero();
    }
  }

  @Test
  void gpuWarpsReadAnInputNoThreadsShareAlongItsRows() {
    // A stereo cost volume [64,48,64] over 40 disparities reads its right image at w - d, once per
    // output: the pick had put a warp over 2 columns x 16 rows (a sector per 2 floats), 0.27x the
    // naive kernel on an H100. The notes say which: the columns one warp covers.
    Tensor vol = UnseenOperatorsTest.costVolume(64, 48, 64, 40);
    for (Target t : List.of(Target.CUDA, Target.OPENCL)) {
      Configuration pick =
          AutoScheduler.untunedConfig(
              t, List.of(vol), SketchRules.defaults(), new AnalyticPredictor());
      Map<String, Double> notes = AutoScheduler.notes(t, List.of(vol), pick);
      String stage = notes.keySet().iterator().next().split("/")[0];
      assertThat(notes).as(t + " " + pick).containsEntry(stage + "/gpu.direct_inputs", 1.0);
      assertThat(notes.get(stage + "/gpu.direct_run")).as(t + " " + pick).isGreaterThanOrEqualTo(8);
    }
  }

  @Test
  void gpuTilesStageOnlyTensorsReadAtOneIndexUpToConstants() {
    // A Gram matrix per batch, X^T X over [8, 300, 96], reads X at [b, n, d] and [b, n, e]: the
    // union of the two over a block moves and changes size with the block. Staged, its copy loop
    // divided by that size at every element: 236 us on an H100 against 9.9 for a thread per
    // output. X stays in the multiply-adds; a matmul's two operands are still staged.
    Tensor x = placeholder("X", FLOAT32, 8, 300, 96);
    dev.kernelgen.te.IterVar n = dev.kernelgen.te.TE.reduceAxis(300, "n");
    Tensor gram =
        dev.kernelgen.te.TE.compute(
            "Gram",
            dev.kernelgen.te.TE.shape(8, 96, 96),
            (b, d, e) -> dev.kernelgen.te.TE.sum(x.at(b, n.var(), d).mul(x.at(b, n.var(), e)), n));
    Tensor a = placeholder("A", FLOAT32, 512, 512);
    Tensor bm = placeholder("B", FLOAT32, 512, 512);
    dev.kernelgen.te.IterVar k = dev.kernelgen.te.TE.reduceAxis(512, "k");
    Tensor mm =
        dev.kernelgen.te.TE.compute(
            "Mm",
            dev.kernelgen.te.TE.shape(512, 512),
            (i, j) -> dev.kernelgen.te.TE.sum(a.at(i, k.var()).mul(bm.at(k.var(), j)), k));
    for (Target t : List.of(Target.CUDA, Target.OPENCL)) {
      Configuration pick =
          AutoScheduler.untunedConfig(
              t, List.of(gram), SketchRules.defaults(), new AnalyticPredictor());
      Schedule s =
          AutoScheduler.generate(
              t, List.of(gram), dev.kernelgen.spec.Knobs.configured(pick.values()));
      assertThat(s.trace().toString()).as(t + " " + pick).doesNotContain("cache_read");
      // Nothing staged: no shared loads for a register tile to save, one output a thread (an H100:
      // 10.7 us, 22.9 with two batches a thread).
      Map<String, Double> notes = AutoScheduler.notes(t, List.of(gram), pick);
      assertThat(notes).as(t + " " + pick).containsEntry("Gram/gpu.reg_tile", 1.0);
      Configuration mmPick =
          AutoScheduler.untunedConfig(
              t, List.of(mm), SketchRules.defaults(), new AnalyticPredictor());
      assertThat(
              AutoScheduler.generate(
                      t, List.of(mm), dev.kernelgen.spec.Knobs.configured(mmPick.values()))
                  .trace()
                  .toString())
          .as(t + " " + mmPick)
          .contains("s[A].cache_read(shared", "s[B].cache_read(shared");
    }
  }

  @Test
  void gpuPicksTakeTheNaiveKernelWhereTheModelSeesNoGainOverIt() {
    // On the H200 the naive kernel (a thread per output) was 1-7% faster than the rules' best
    // tiling of each reduction with little reuse: depthwise 1.69 against 1.75 us, max pool 1.71
    // against 1.78, the seed's fused depthwise 9.0 against 10.2.
    Tensor in = placeholder("Input", FLOAT32, 1, 64, 56, 56);
    Tensor dw =
        Nn.depthwiseConv2dNchw(
            in,
            placeholder("DwFilter", FLOAT32, 64, 1, 3, 3),
            1,
            1,
            Padding.same(56, 56, 3, 3, 1, 1, 1),
            1);
    Tensor image = placeholder("Image", FLOAT32, 1, 64, 112, 112);
    Tensor pool = Pooling.maxPool2d(image, 3, 3, 2, 2, Padding.same(112, 112, 3, 3, 2, 2, 1));
    for (Target t : List.of(Target.CUDA, Target.OPENCL)) {
      for (Tensor out : List.of(dw, pool)) {
        Configuration pick =
            AutoScheduler.untunedConfig(
                t, List.of(out), SketchRules.defaults(), new AnalyticPredictor());
        assertThat(pick.values()).as(t + " " + out.name()).containsEntry(AutoScheduler.SKETCH, 1);
      }
      // Where tiles reuse data (a matmul of 64 steps, a convolution of 45), the rules' sketch; and
      // never on the CPU. (The 13 x 19 x 23 matmul of Workloads, 19 steps, prime extents that every
      // register tile leaves ragged, may take either.)
      for (List<Tensor> outs : List.of(List.of(matmul(64)), Workloads.all().get(2).outputs())) {
        assertThat(
                AutoScheduler.untunedConfig(
                        t, outs, SketchRules.defaults(), new AnalyticPredictor())
                    .values())
            .as(t + " " + outs.get(0).name())
            .containsEntry(AutoScheduler.SKETCH, 0);
      }
    }
    assertThat(
            AutoScheduler.untunedConfig(
                    Target.C, List.of(dw), SketchRules.defaults(), new AnalyticPredictor())
                .values())
        .containsEntry(AutoScheduler.SKETCH, 0);
  }

  @Test
  void theNaiveKernelsLastPartialBlockIsNoRaggedTile() {
    // A 2x2 stride-2 max pool over [8,30,111,111]: 726000 outputs, not a multiple of the naive
    // kernel's 256 threads. Weighed as a ragged tile (twice the cost), the naive kernel lost to a
    // tiling of 2 x 2 x 55 threads that ran 3.3 us against its 2.9 (an H100; a box blur twice,
    // 16.6 against 15.2): only its last block is partial.
    Tensor x = placeholder("X", FLOAT32, 8, 30, 111, 111);
    IterVar ky = reduceAxis(2, "ky");
    IterVar kx = reduceAxis(2, "kx");
    Tensor pool =
        compute(
            "MaxPool2",
            shape(8, 30, 55, 55),
            (n, c, h, w) ->
                max(x.at(n, c, h.mul(2).add(ky.var()), w.mul(2).add(kx.var())), ky, kx));
    for (Target t : List.of(Target.CUDA, Target.OPENCL)) {
      assertThat(
              AutoScheduler.untunedConfig(
                      t, List.of(pool), SketchRules.defaults(), new AnalyticPredictor())
                  .values())
          .as(t.toString())
          .containsEntry(AutoScheduler.SKETCH, AutoScheduler.NAIVE);
    }
  }

  @Test
  void userRulesReplaceTheDefaults() {
    // Without the tiling rule, a matmul's reduction is left as the unscheduled loop nest.
    Workloads w = Workloads.all().get(1);
    List<SketchRule> rules = List.of(new InlineInjective(), new ElementwiseRoot());
    Schedule s =
        AutoScheduler.generate(
            Target.C, w.outputs(), dev.kernelgen.spec.Knobs.defaults(), rules, java.util.Map.of());
    assertThat(s.trace().steps()).isEmpty();
    Schedule d = AutoScheduler.generate(Target.C, w.outputs(), dev.kernelgen.spec.Knobs.defaults());
    assertThat(d.trace().toString()).contains("cache_write").contains("parallel");
  }

  /**
   * An elementwise output whose innermost axis is short (a complex number's two parts) keeps that
   * axis a plain loop on CPUs, for the C compiler to unroll and vectorize the loop around; a long
   * one is vectorized (a complex product over [1000003, 2]: 439 -> 209-225 us, 2 Zen 4 cores).
   */
  @Test
  void aShortInnermostAxisOfAnElementwiseOutputIsNotVectorizedOnCpus() {
    for (int inner : new int[] {2, 3, 64}) {
      Tensor a = placeholder("A", FLOAT32, 1001, inner);
      Tensor b = placeholder("B", FLOAT32, 1001, inner);
      Tensor y =
          dev.kernelgen.te.TE.compute(
              "Prod",
              dev.kernelgen.te.TE.shape(1001, inner),
              (i, c) ->
                  dev.kernelgen.te.TE.select(
                      c.eq(0), a.at(i, c).mul(b.at(i, c)), a.at(i, c).add(b.at(i, 0))));
      Schedule s = AutoScheduler.untuned(Target.C, List.of(y));
      assertThat(s.trace().toString()).as("inner %d", inner).contains("parallel");
      assertThat(s.trace().toString().contains("vectorize"))
          .as("inner %d", inner)
          .isEqualTo(inner >= ElementwiseRoot.MIN_VECTOR_EXTENT);
      dev.kernelgen.testing.Check.check(
          s,
          OpSchedules.args(s),
          java.util.Map.of(),
          java.util.EnumSet.of(dev.kernelgen.testing.Check.Backend.C),
          1e-5,
          1e-5);
    }
  }

  /**
   * A one-axis elementwise output runs in parallel chunks, each a vectorized loop from a known
   * start (a complex product chosen by the index's parity: 1570 -> 686 us, 2 Zen 4 cores); a ragged
   * length equals the oracle.
   */
  @Test
  void aLongOneAxisElementwiseOutputRunsInVectorizedChunks() {
    int n = 2 * ElementwiseRoot.CHUNK + 6;
    Tensor a = placeholder("A", FLOAT32, n);
    Tensor b = placeholder("B", FLOAT32, n);
    Tensor y =
        dev.kernelgen.te.TE.compute(
            "CMul",
            dev.kernelgen.te.TE.shape(n),
            k -> {
              var re = k.floordiv(2).mul(2);
              var im = re.add(1);
              return dev.kernelgen.te.TE.select(
                  k.floormod(2).eq(0),
                  a.at(re).mul(b.at(re)).sub(a.at(im).mul(b.at(im))),
                  a.at(re).mul(b.at(im)).add(a.at(im).mul(b.at(re))));
            });
    Schedule s = AutoScheduler.untuned(Target.C, List.of(y));
    assertThat(s.trace().toString())
        .contains("split(i, factor=" + ElementwiseRoot.CHUNK + ")")
        .contains("parallel(i.outer)")
        .contains("vectorize(i.inner)");
    dev.kernelgen.testing.Check.check(
        s,
        OpSchedules.args(s),
        java.util.Map.of(),
        java.util.EnumSet.of(
            dev.kernelgen.testing.Check.Backend.C, dev.kernelgen.testing.Check.Backend.IR),
        1e-5,
        1e-5);
  }

  /**
   * On GPUs a reduction masked by its output's indices (a prefix sum) takes the naive kernel, whose
   * loop then covers the output's own range only; a padding's bounds check in a convolution's
   * reduction (both indices on one side) does not force it.
   */
  @Test
  void aTriangleMaskedReductionTakesTheNaiveKernelOnGpus() {
    Tensor x = dev.kernelgen.te.TE.placeholder("X", dev.kernelgen.te.TE.FLOAT32, 64, 256);
    var k = dev.kernelgen.te.TE.reduceAxis(256, "k");
    Tensor prefix =
        dev.kernelgen.te.TE.compute(
            "Prefix",
            dev.kernelgen.te.TE.shape(64, 256),
            (i, j) ->
                dev.kernelgen.te.TE.sum(
                    dev.kernelgen.te.TE.select(k.var().le(j), x.at(i, k.var()), 0.0), k));
    assertThat(NaiveSchedule.masksByOutput(List.of(prefix))).isTrue();
    var pick =
        AutoScheduler.untunedConfig(
            Target.CUDA, List.of(prefix), SketchRules.defaults(), new AnalyticPredictor());
    assertThat(pick.values()).containsEntry(AutoScheduler.SKETCH, AutoScheduler.NAIVE);
    // Each thread's loop ends at its own column: "k < max(min(j + 1, 256), 0)", not "k < 256".
    assertThat(cuda(List.of(prefix))).containsPattern("for \\(int k = 0; k < [^0-9]");
    Tensor in = dev.kernelgen.te.TE.placeholder("In", dev.kernelgen.te.TE.FLOAT32, 1, 16, 30, 30);
    Tensor w = dev.kernelgen.te.TE.placeholder("Wt", dev.kernelgen.te.TE.FLOAT32, 32, 16, 3, 3);
    var c = dev.kernelgen.te.TE.reduceAxis(16, "c");
    var ky = dev.kernelgen.te.TE.reduceAxis(3, "ky");
    var kx = dev.kernelgen.te.TE.reduceAxis(3, "kx");
    Tensor conv =
        dev.kernelgen.te.TE.compute(
            "PaddedConv",
            dev.kernelgen.te.TE.shape(1, 32, 30, 30),
            (n, o, i, j) -> {
              var iy = i.add(ky.var()).sub(1);
              var ix = j.add(kx.var()).sub(1);
              return dev.kernelgen.te.TE.sum(
                  dev.kernelgen.te.TE.select(
                      iy.ge(0).and(iy.lt(30)).and(ix.ge(0)).and(ix.lt(30)),
                      in.at(n, c.var(), iy, ix).mul(w.at(o, c.var(), ky.var(), kx.var())),
                      0.0),
                  c,
                  ky,
                  kx);
            });
    assertThat(NaiveSchedule.masksByOutput(List.of(conv))).isFalse();
  }
}
