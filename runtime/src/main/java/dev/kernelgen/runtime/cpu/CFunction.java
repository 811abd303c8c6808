package dev.kernelgen.runtime.cpu;

import dev.kernelgen.runtime.DeviceException;
import dev.kernelgen.runtime.KernelFunction;
import dev.kernelgen.runtime.KernelSignature;
import dev.kernelgen.runtime.LaunchConfig;
import dev.kernelgen.runtime.Lifecycle;
import dev.kernelgen.runtime.backend.HostPointers;
import dev.kernelgen.runtime.backend.KernelArguments;
import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodType;

/** A C kernel: one downcall handle, built once from the signature. */
public final class CFunction implements KernelFunction {
  private final CpuDevice device;
  private final String name;
  private final KernelSignature signature;
  private final MethodHandle handle;
  private final MethodHandle spread;
  private final Lifecycle module;

  CFunction(
      CpuDevice device,
      String name,
      KernelSignature signature,
      MethodHandle handle,
      Lifecycle module) {
    this.device = device;
    this.module = module;
    this.name = name;
    this.signature = signature;
    this.handle = handle;
    // A kernel without a status returns 0 here.
    MethodHandle h =
        handle.type().returnType() == long.class
            ? handle
            : java.lang.invoke.MethodHandles.filterReturnValue(
                handle, java.lang.invoke.MethodHandles.constant(long.class, 0L));
    this.spread =
        h.asSpreader(Object[].class, signature.size())
            .asType(MethodType.methodType(long.class, Object[].class));
  }

  @Override
  public String name() {
    return name;
  }

  @Override
  public KernelSignature signature() {
    return signature;
  }

  /**
   * The downcall handle itself ({@code long(MemorySegment..., int, long, ...)} for generated
   * kernels, which return 0 or the bytes of a temporary they could not allocate; {@code void} for
   * hand-written ones), for launchers that keep it in a static final and call it without boxing.
   * Such callers check that the module is open themselves: the handle outlives it.
   */
  public MethodHandle methodHandle() {
    module.checkOpen();
    return handle;
  }

  @Override
  public void launch(LaunchConfig config, Object... args) {
    String where = device.name() + ", kernel " + name;
    signature.checkArguments(where, args);
    Object[] values = new Object[args.length];
    KernelArguments.marshal(
        signature,
        args,
        new KernelArguments.Sink() {
          @Override
          public void pointer(int i, Object arg) {
            values[i] = HostPointers.of(device, where, i, arg);
          }

          @Override
          public void int32(int i, int value) {
            values[i] = value;
          }

          @Override
          public void int64(int i, long value) {
            values[i] = value;
          }

          @Override
          public void float32(int i, float value) {
            values[i] = value;
          }

          @Override
          public void float64(int i, double value) {
            values[i] = value;
          }
        });
    long status;
    try (Lifecycle.Use u = module.enter()) {
      status = (long) spread.invokeExact(values);
    } catch (RuntimeException | Error e) {
      throw e;
    } catch (Throwable t) {
      throw new DeviceException(where + ": " + t, t);
    }
    if (status == -1) {
      throw new DeviceException(
          where
              + ": integer division by zero (a floordiv or floormod by a value read from a"
              + " tensor; the outputs are incomplete)");
    }
    if (status == -2) {
      throw new DeviceException(
          where
              + ": an index read from a tensor is outside the tensor it indexes (a gather; the"
              + " outputs are incomplete)");
    }
    if (status != 0) {
      throw new DeviceException(
          where
              + ": out of memory: could not allocate "
              + status
              + " bytes for a temporary (the outputs are incomplete)");
    }
  }
}
