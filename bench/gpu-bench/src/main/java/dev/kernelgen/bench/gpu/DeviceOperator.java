package dev.kernelgen.bench.gpu;

import dev.kernelgen.annotations.Target;
import dev.kernelgen.arith.Simplifier;
import dev.kernelgen.codegen.CudaCodegen;
import dev.kernelgen.codegen.LaunchGeometry;
import dev.kernelgen.codegen.NativeToolchain;
import dev.kernelgen.codegen.OpenClCodegen;
import dev.kernelgen.diag.UserError;
import dev.kernelgen.lower.Lower;
import dev.kernelgen.lower.SplitHostDevice;
import dev.kernelgen.measure.Modules;
import dev.kernelgen.runtime.DataType;
import dev.kernelgen.runtime.Device;
import dev.kernelgen.runtime.DeviceBuffer;
import dev.kernelgen.runtime.KernelBinary;
import dev.kernelgen.runtime.KernelFunction;
import dev.kernelgen.runtime.KernelModule;
import dev.kernelgen.runtime.KernelSignature;
import dev.kernelgen.runtime.LaunchConfig;
import dev.kernelgen.schedule.Schedule;
import dev.kernelgen.te.Buffer;
import dev.kernelgen.te.DType;
import dev.kernelgen.te.Expr;
import dev.kernelgen.te.Tensor;
import dev.kernelgen.te.Var;
import dev.kernelgen.tir.PrimFunc;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * A scheduled operator compiled for a GPU device (CUDA or OpenCL) and ready to launch: lowered,
 * split into kernels, printed, compiled (nvcc: PTX for compute_90 and an sm_90 cubin; OpenCL: by
 * the driver from source), loaded, with the launch geometry of each kernel computed for the given
 * dims and the temporaries allocated once.
 */
public final class DeviceOperator implements AutoCloseable {
  private final Device device;
  private final String source;
  private final SplitHostDevice.DeviceModule module;
  private final List<KernelFunction> functions = new ArrayList<>();
  private final List<LaunchConfig> configs = new ArrayList<>();
  private final List<DeviceBuffer> temporaries = new ArrayList<>();
  private final Object[] scalarArgs;
  private final KernelModule loaded;

  /** What compiling a scheduled operator for a target produced, before it is loaded. */
  public record Compiled(
      Target target,
      SplitHostDevice.DeviceModule module,
      List<Var> scalars,
      String source,
      KernelBinary binary) {}

  /**
   * Lowers, splits, prints and compiles {@code s} for {@code target}: no device is needed, so
   * several can be compiled at once (nvcc runs as a separate process).
   */
  public static Compiled compile(Target target, Schedule s, List<Tensor> args, String name) {
    UserError.check(
        target == Target.CUDA || target == Target.OPENCL,
        "DeviceOperator runs on GPU devices, not %s",
        target);
    PrimFunc f = Lower.lower(s, name, args, target, null);
    SplitHostDevice.DeviceModule module = SplitHostDevice.split(f);
    if (target == Target.CUDA) {
      String source = CudaCodegen.generate(module.kernels(), name);
      return new Compiled(
          target,
          module,
          f.scalars(),
          source,
          Modules.cuda(NativeToolchain.fromEnvironment(), name, source, 90));
    }
    String source = OpenClCodegen.generate(module.kernels(), name);
    return new Compiled(target, module, f.scalars(), source, new KernelBinary.OpenCl(name, source));
  }

  public DeviceOperator(
      Device device, Schedule s, List<Tensor> args, String name, Map<Var, Long> dims) {
    this(device, compile(device.target(), s, args, name), dims);
  }

  public DeviceOperator(Device device, Compiled c, Map<Var, Long> dims) {
    this.device = device;
    this.source = c.source();
    this.module = c.module();
    this.loaded = device.loadModule(c.binary());
    for (PrimFunc k : module.kernels()) {
      List<KernelSignature.ParamKind> kinds = new ArrayList<>();
      k.params().forEach(b -> kinds.add(KernelSignature.ParamKind.POINTER));
      for (Var v : k.scalars()) {
        kinds.add(
            v.dtype() == DType.INT64
                ? KernelSignature.ParamKind.INT64
                : KernelSignature.ParamKind.INT32);
      }
      functions.add(loaded.function(k.name(), new KernelSignature(kinds)));
      long[] g = LaunchGeometry.of(k).evaluate(dims);
      configs.add(
          new LaunchConfig(
              new int[] {(int) g[0], (int) g[1], (int) g[2]},
              new int[] {(int) g[3], (int) g[4], (int) g[5]},
              0));
    }
    for (int t = 0; t < module.temporaries().size(); t++) {
      Buffer b = module.temporaries().get(t);
      long size = eval(module.temporarySizes().get(t), dims);
      temporaries.add(device.allocate(DataType.valueOf(b.dtype().name()), size));
    }
    List<Object> scalars = new ArrayList<>();
    for (Var v : c.scalars()) {
      long x = dims.get(v);
      scalars.add(v.dtype() == DType.INT64 ? (Object) x : (Object) (int) x);
    }
    this.scalarArgs = scalars.toArray();
  }

  /** The generated source (CUDA C or OpenCL C). */
  public String source() {
    return source;
  }

  public List<LaunchConfig> launchConfigs() {
    return List.copyOf(configs);
  }

  /**
   * Why one of the kernels cannot launch with its block on this device (registers or shared memory
   * per thread too many for the block), or null.
   */
  public String cannotLaunch() {
    for (int i = 0; i < functions.size(); i++) {
      String why = functions.get(i).cannotLaunch(configs.get(i));
      if (why != null) {
        return why;
      }
    }
    return null;
  }

  public int kernelCount() {
    return functions.size();
  }

  /** Launches every kernel, in order, on the device's stream or queue (asynchronously). */
  public void launch(List<DeviceBuffer> args) {
    Object[] all = new Object[args.size() + temporaries.size() + scalarArgs.length];
    int k = 0;
    for (DeviceBuffer b : args) {
      all[k++] = b;
    }
    for (DeviceBuffer b : temporaries) {
      all[k++] = b;
    }
    for (Object o : scalarArgs) {
      all[k++] = o;
    }
    for (int i = 0; i < functions.size(); i++) {
      functions.get(i).launch(configs.get(i), all);
    }
  }

  public Device device() {
    return device;
  }

  static long eval(Expr e, Map<Var, Long> dims) {
    return Simplifier.evaluate(e, dims);
  }

  @Override
  public void close() {
    temporaries.forEach(DeviceBuffer::close);
    loaded.close();
  }
}
