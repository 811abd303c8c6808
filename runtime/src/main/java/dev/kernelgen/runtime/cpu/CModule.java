package dev.kernelgen.runtime.cpu;

import dev.kernelgen.runtime.DeviceException;
import dev.kernelgen.runtime.KernelSignature;
import dev.kernelgen.runtime.Lifecycle;
import dev.kernelgen.runtime.backend.BackendModule;
import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.MemoryLayout;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.SymbolLookup;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;
import java.nio.file.Path;

/**
 * A C kernel library loaded into the process, and its kernels, bound once by name. The library
 * stays loaded (see {@link CpuDevice#loadModule}); closing the module releases it after the
 * launches in flight, and its functions no longer launch.
 */
final class CModule extends BackendModule<CpuDevice, CFunction> {
  private final Path file;
  private final Arena arena;
  private final SymbolLookup lookup;

  CModule(
      CpuDevice device,
      Lifecycle deviceLifecycle,
      String name,
      Path file,
      Arena arena,
      SymbolLookup lookup) {
    super(device, deviceLifecycle, "C", name);
    this.file = file;
    this.arena = arena;
    this.lookup = lookup;
  }

  @Override
  protected CFunction bind(String kernel, KernelSignature signature) {
    MemorySegment symbol =
        lookup
            .find(kernel)
            .orElseThrow(
                () ->
                    new DeviceException(
                        device().name()
                            + ": C kernel library "
                            + moduleName()
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
        device()
            .linker()
            .downcallHandle(
                symbol,
                status
                    ? FunctionDescriptor.of(ValueLayout.JAVA_LONG, layouts)
                    : FunctionDescriptor.ofVoid(layouts));
    return new CFunction(device(), kernel, signature, handle, lifecycle());
  }
}
