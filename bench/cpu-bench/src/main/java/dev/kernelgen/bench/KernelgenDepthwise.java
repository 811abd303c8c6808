package dev.kernelgen.bench;

import static dev.kernelgen.te.TE.FLOAT32;
import static dev.kernelgen.te.TE.placeholder;

import dev.kernelgen.annotations.Target;
import dev.kernelgen.autosched.AutoScheduler;
import dev.kernelgen.codegen.NativeToolchain;
import dev.kernelgen.lower.Lower;
import dev.kernelgen.measure.Modules;
import dev.kernelgen.runtime.DataType;
import dev.kernelgen.runtime.HostTensor;
import dev.kernelgen.runtime.KernelFunction;
import dev.kernelgen.runtime.KernelModule;
import dev.kernelgen.runtime.KernelSignature;
import dev.kernelgen.runtime.LaunchConfig;
import dev.kernelgen.runtime.cpu.CpuDevice;
import dev.kernelgen.schedule.Schedule;
import dev.kernelgen.te.Tensor;
import dev.kernelgen.tir.PrimFunc;
import dev.kernelgen.topi.DepthwiseSchedules;
import dev.kernelgen.topi.Nn;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

/**
 * "Ours" in the CPU benchmark: the seed's depthwise convolution (and the fused variant) written
 * with kernelgen's operator library, scheduled with {@link DepthwiseSchedules#cpu}, generated as C,
 * compiled with {@code cc -O3 -fopenmp} at the ISA level the runtime loads here and called through
 * the runtime's FFM device. Kernels read and write native memory: inputs are copied there once,
 * before timing.
 */
public final class KernelgenDepthwise implements OursKernel {
  private static final CpuDevice DEVICE = CpuDevice.create();

  /** The width of the vectorized row chunks; 0 vectorizes whole rows. */
  private final int vector;

  /** Whether the schedule is the auto-scheduler's untuned pick instead of the template. */
  private final boolean generated;

  public KernelgenDepthwise() {
    this(Integer.getInteger("kernels.bench.vector", 0), false);
  }

  public KernelgenDepthwise(int vector, boolean generated) {
    this.vector = vector;
    this.generated = generated;
  }

  @Override
  public String name() {
    return generated
        ? "kernelgen C (the auto-scheduler's untuned pick, no template)"
        : "kernelgen C ("
            + (vector == 0 ? "whole rows vectorized" : "rows in chunks of " + vector)
            + ")";
  }

  @Override
  public DepthwiseImpl create(Workload w, boolean fused) {
    Tensor in = placeholder("Input", FLOAT32, w.n(), w.c(), w.h(), w.w());
    Tensor filter = placeholder("Filter", FLOAT32, w.c(), w.multiplier(), w.kernel(), w.kernel());
    Tensor scale = placeholder("Scale", FLOAT32, w.outChannels());
    Tensor shift = placeholder("Shift", FLOAT32, w.outChannels());
    dev.kernelgen.topi.Padding pad =
        new dev.kernelgen.topi.Padding(w.padTop(), w.padLeft(), w.padBottom(), w.padRight());
    Tensor conv = Nn.depthwiseConv2dNchw(in, filter, w.stride(), w.stride(), pad, 1);
    Tensor out = fused ? Nn.relu(Nn.scaleShift(conv, scale, shift)) : conv;
    Schedule s =
        generated
            ? AutoScheduler.schedule(
                Target.C, Modules.vectorUnit(), List.of(out), dev.kernelgen.spec.Knobs.defaults())
            : DepthwiseSchedules.cpu(conv, out, vector);
    List<Tensor> args = fused ? List.of(in, filter, scale, shift, out) : List.of(in, filter, out);
    PrimFunc f = Lower.lower(s, fused ? "depthwise_fused" : "depthwise", args, Target.C, null);
    KernelFunction fn = compile(f);
    return new Prepared(w, fused, fn);
  }

  static KernelFunction compile(PrimFunc f) {
    KernelModule module =
        DEVICE.loadModule(
            Modules.cLibrary(NativeToolchain.fromEnvironment(), List.of(f), "bench_" + f.name()));
    List<KernelSignature.ParamKind> kinds =
        new ArrayList<>(Collections.nCopies(f.params().size(), KernelSignature.ParamKind.POINTER));
    return module.function(f.name(), new KernelSignature(kinds));
  }

  /** A compiled kernel; the timed call reads and writes native tensors, without copies. */
  record Prepared(Workload w, boolean fused, KernelFunction fn) implements DepthwiseImpl {
    @Override
    public void run(float[] in, float[] filter, float[] scale, float[] shift, float[] out) {
      Object[] args = args(in, filter, scale, shift, out.length);
      fn.launch(LaunchConfig.HOST, args);
      HostTensor result = (HostTensor) args[args.length - 1];
      System.arraycopy(result.toFloatArray(), 0, out, 0, out.length);
    }

    @Override
    public Runnable prepare(float[] in, float[] filter, float[] scale, float[] shift, float[] out) {
      Object[] args = args(in, filter, scale, shift, out.length);
      return () -> fn.launch(LaunchConfig.HOST, args);
    }

    private Object[] args(float[] in, float[] filter, float[] scale, float[] shift, int outSize) {
      HostTensor tout = HostTensor.zeros(DataType.FLOAT32, outSize);
      return fused
          ? new Object[] {
            HostTensor.of(in),
            HostTensor.of(filter),
            HostTensor.of(scale),
            HostTensor.of(shift),
            tout
          }
          : new Object[] {HostTensor.of(in), HostTensor.of(filter), tout};
    }
  }
}
