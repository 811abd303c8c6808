package dev.kernelgen.bench.gpu;

import static dev.kernelgen.te.TE.FLOAT32;
import static dev.kernelgen.te.TE.placeholder;

import dev.kernelgen.bench.Workload;
import dev.kernelgen.schedule.Schedule;
import dev.kernelgen.te.Tensor;
import dev.kernelgen.topi.DepthwiseSchedules;
import dev.kernelgen.topi.DepthwiseSchedules.DirectConfig;
import dev.kernelgen.topi.DepthwiseSchedules.GpuConfig;
import dev.kernelgen.topi.Nn;
import dev.kernelgen.topi.Padding;
import java.util.List;

/** The seed article's depthwise operator for a workload, and its scheduled variants. */
public record SeedSchedules(
    Workload workload,
    Tensor input,
    Tensor filter,
    Tensor scale,
    Tensor shift,
    Tensor conv,
    Tensor fused) {

  public static SeedSchedules of(Workload w) {
    Tensor in = placeholder("Input", FLOAT32, w.n(), w.c(), w.h(), w.w());
    Tensor filter = placeholder("Filter", FLOAT32, w.c(), w.multiplier(), w.kernel(), w.kernel());
    Tensor scale = placeholder("Scale", FLOAT32, w.outChannels());
    Tensor shift = placeholder("Shift", FLOAT32, w.outChannels());
    Padding pad = new Padding(w.padTop(), w.padLeft(), w.padBottom(), w.padRight());
    Tensor conv = Nn.depthwiseConv2dNchw(in, filter, w.stride(), w.stride(), pad, 1);
    Tensor fused = Nn.relu(Nn.scaleShift(conv, scale, shift));
    return new SeedSchedules(w, in, filter, scale, shift, conv, fused);
  }

  public List<Tensor> plainArgs() {
    return List.of(input, filter, conv);
  }

  public List<Tensor> fusedArgs() {
    return List.of(input, filter, scale, shift, fused);
  }

  /** Step 1: one block per channel, input and filter in shared memory. */
  public Schedule step1() {
    return DepthwiseSchedules.gpuOneBlockPerChannel(conv);
  }

  /** Steps 2-4 (blocking, threads, virtual threads) on the plain operator. */
  public Schedule plain(GpuConfig k) {
    return DepthwiseSchedules.gpu(conv, conv, k);
  }

  /** Step 5: the fused operator in one kernel. */
  public Schedule fused(GpuConfig k) {
    return DepthwiseSchedules.gpu(conv, fused, k);
  }

  /** The direct schedule (no shared memory, several rows per thread) of the plain operator. */
  public Schedule plainDirect(DirectConfig k) {
    return DepthwiseSchedules.gpuDirect(conv, conv, k);
  }

  /** The direct schedule of the fused operator: one kernel. */
  public Schedule fusedDirect(DirectConfig k) {
    return DepthwiseSchedules.gpuDirect(conv, fused, k);
  }
}
