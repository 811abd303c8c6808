package dev.kernelgen.runtime.cpu;

import dev.kernelgen.runtime.Device;
import dev.kernelgen.runtime.DeviceException;
import dev.kernelgen.runtime.KernelFunction;
import dev.kernelgen.runtime.KernelModule;
import dev.kernelgen.runtime.KernelSignature;
import dev.kernelgen.runtime.Lifecycle;
import dev.kernelgen.runtime.backend.FunctionCache;
import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.MemoryLayout;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.SymbolLookup;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;
import java.nio.file.Path;

/** A C kernel library loaded into the process, and its kernels, bound once by name. */
final class CModule implements KernelModule {
  private final CpuDevice device;
  private final String name;
  private final Path file;
  private final Arena arena;
  private final SymbolLookup lookup;
  private final FunctionCache<CFunction> functions = new FunctionCache<>("C kernel");
  private final Lifecycle lifecycle;

  CModule(CpuDevice device, String name, Path file, Arena arena, SymbolLookup lookup) {
    this.device = device;
    this.lifecycle = new Lifecycle(this, device.lifecycle());
    this.name = name;
    this.file = file;
    this.arena = arena;
    this.lookup = lookup;
  }

  @Override
  public Device device() {
    return device;
  }

  @Override
  public KernelFunction function(String kernel, KernelSignature signature) {
    lifecycle.checkOpen();
    return functions.get(kernel, signature, this::bind);
  }

  private CFunction bind(String kernel, KernelSignature signature) {
    MemorySegment symbol =
        lookup
            .find(kernel)
            .orElseThrow(
                () ->
                    new DeviceException(
                        device.name()
                            + ": C kernel library "
                            + name
                            + " ("
                            + file
                            + ") has no function "
                            + kernel));
    MemoryLayout[] layouts = new MemoryLayout[signature.size()];
    for (int i = 0; i < layouts.length; i++) {
      layouts[i] =
          switch (signature.get(i)) {
            case POINTER -> ValueLayout.ADDRESS;
            case INT32 -> ValueLayout.JAVA_INT;
            case INT64 -> ValueLayout.JAVA_LONG;
            case FLOAT32 -> ValueLayout.JAVA_FLOAT;
            case FLOAT64 -> ValueLayout.JAVA_DOUBLE;
          };
    }
    // Generated kernels return an allocation status (see CCodegen); hand-written ones nothing.
    boolean status = lookup.find(CpuDevice.STATUS_ABI_SYMBOL).isPresent();
    MethodHandle handle =
        device
            .linker()
            .downcallHandle(
                symbol,
                status
                    ? FunctionDescriptor.of(ValueLayout.JAVA_LONG, layouts)
                    : FunctionDescriptor.ofVoid(layouts));
    return new CFunction(device, kernel, signature, handle, lifecycle);
  }

  /**
   * The library stays loaded (see {@link CpuDevice#loadModule}); the module is released after the
   * launches in flight, and its functions no longer launch.
   */
  @Override
  public void close() {
    lifecycle.close();
  }

  @Override
  public String toString() {
    return "C module " + name + " on " + device.name();
  }
}
