package dev.kernelgen.runtime;

import dev.kernelgen.annotations.Target;
import dev.kernelgen.runtime.backend.HostPointers;
import dev.kernelgen.runtime.backend.WallClockTimer;
import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemoryLayout;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.SymbolLookup;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodType;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentHashMap;

/**
 * This machine's CPU running C kernels: shared libraries extracted to a {@link NativeLibraryCache}
 * and called through the JDK's FFM API. Buffers are host memory that kernels read in place; a
 * kernel is one call (the generated C loops over the whole domain, in parallel where scheduled so)
 * and the launch geometry is ignored.
 */
public final class CpuDevice implements Device {
  private final NativeLibraryCache cache;
  private final Linker linker = Linker.nativeLinker();
  private final Lifecycle lifecycle = new Lifecycle(this);

  /**
   * Whether this is the process-wide device that {@link Devices} hands out: it lives as long as the
   * process, and closing it does nothing, since other users hold it too.
   */
  private volatile boolean shared;

  /** Makes this the process-wide device of its target (see {@link #close}). */
  void markShared() {
    shared = true;
  }

  CpuDevice(NativeLibraryCache cache) {
    this.cache = cache;
  }

  /** A CPU device extracting libraries to {@link NativeLibraryCache#standard()}. */
  public static CpuDevice create() {
    return new CpuDevice(NativeLibraryCache.standard());
  }

  /** A CPU device extracting libraries to the given cache. */
  public static CpuDevice create(NativeLibraryCache cache) {
    return new CpuDevice(cache);
  }

  @Override
  public Target target() {
    return Target.C;
  }

  @Override
  public String name() {
    return "CPU (C, "
        + System.getProperty("os.arch")
        + ", "
        + Runtime.getRuntime().availableProcessors()
        + " threads)";
  }

  @Override
  public DeviceBuffer allocate(DataType dtype, long count) {
    lifecycle.checkOpen();
    return new HostBuffer(this, lifecycle, dtype, count);
  }

  @Override
  public KernelModule loadModule(KernelBinary binary) {
    if (!(binary instanceof KernelBinary.C c)) {
      throw new DeviceException(name() + " runs C kernels, not " + binary.describe());
    }
    lifecycle.checkOpen();
    KernelBinary.C.Library chosen = CpuIsa.select(c);
    byte[] lib = chosen.bytes();
    if (isLinux()
        && !(lib.length > 4 && lib[0] == 0x7f && lib[1] == 'E' && lib[2] == 'L' && lib[3] == 'F')) {
      // Caught before dlopen, which would fail less clearly (and make the JVM warn about stacks).
      throw new DeviceException(
          name() + ": cannot load C kernel library " + c.name() + ": not an ELF shared library");
    }
    Path file = cache.extract(lib, chosen.sha256());
    // Loaded for the life of the process, never unloaded: kernels built with OpenMP pull in
    // libgomp, whose idle worker threads crash if the library is unmapped (dlclose) under them.
    Arena arena = Arena.global();
    try {
      SymbolLookup lookup = SymbolLookup.libraryLookup(file, arena);
      return new CModule(c.name(), file, arena, lookup);
    } catch (IllegalArgumentException e) {
      throw new DeviceException(
          name()
              + ": cannot load C kernel library "
              + c.name()
              + " ("
              + chosen.isaLevel()
              + ") from "
              + file
              + ": "
              + e.getMessage()
              + missingDependencies(lib),
          e);
    }
  }

  /**
   * Why the loader may have refused a library: the libraries it needs that this machine cannot load
   * (libgomp, say), else a hint at symbol versions.
   */
  static String missingDependencies(byte[] library) {
    List<String> missing = new ArrayList<>();
    for (String needed : ElfNeeded.of(library)) {
      try {
        SymbolLookup.libraryLookup(needed, Arena.global());
      } catch (IllegalArgumentException e) {
        missing.add(needed);
      }
    }
    if (!missing.isEmpty()) {
      return "; it needs "
          + String.join(", ", missing)
          + ", which this machine does not have (libgomp.so.1: install the OpenMP runtime, e.g."
          + " the libgomp1 package)";
    }
    return "; its dependencies are present, so a symbol or its version is missing (a C library"
        + " older than the build's?)";
  }

  @Override
  public void synchronize() {
    // C kernels return when they are done.
    lifecycle.checkOpen();
  }

  @Override
  public DeviceTimer timer() {
    lifecycle.checkOpen();
    return new WallClockTimer();
  }

  /**
   * Waits for the launches in flight; later uses of the device, its modules and its buffers throw
   * {@link IllegalStateException}. The device of {@link Devices} stays open.
   */
  @Override
  public void close() {
    if (!shared) {
      lifecycle.close();
    }
  }

  @Override
  public String toString() {
    return name();
  }

  private static boolean isLinux() {
    return System.getProperty("os.name", "").startsWith("Linux");
  }

  /**
   * Exported by a C module whose kernels return a status: 0, or the bytes of a temporary they could
   * not allocate (kernelgen's generated C).
   */
  static final String STATUS_ABI_SYMBOL = "kernelgen_status_abi";

  private final class CModule implements KernelModule {
    private final String name;
    private final Path file;
    private final Arena arena;
    private final SymbolLookup lookup;
    private final ConcurrentHashMap<String, CFunction> functions = new ConcurrentHashMap<>();
    private final Lifecycle lifecycle;

    CModule(String name, Path file, Arena arena, SymbolLookup lookup) {
      this.lifecycle = new Lifecycle(this, CpuDevice.this.lifecycle);
      this.name = name;
      this.file = file;
      this.arena = arena;
      this.lookup = lookup;
    }

    @Override
    public Device device() {
      return CpuDevice.this;
    }

    @Override
    public KernelFunction function(String kernel, KernelSignature signature) {
      lifecycle.checkOpen();
      CFunction f = functions.computeIfAbsent(kernel, k -> bind(k, signature));
      if (!f.signature().equals(signature)) {
        throw new IllegalArgumentException(
            "C kernel " + kernel + " was bound with " + f.signature() + ", not " + signature);
      }
      return f;
    }

    private CFunction bind(String kernel, KernelSignature signature) {
      MemorySegment symbol =
          lookup
              .find(kernel)
              .orElseThrow(
                  () ->
                      new DeviceException(
                          CpuDevice.this.name()
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
      boolean status = lookup.find(STATUS_ABI_SYMBOL).isPresent();
      MethodHandle handle =
          linker.downcallHandle(
              symbol,
              status
                  ? FunctionDescriptor.of(ValueLayout.JAVA_LONG, layouts)
                  : FunctionDescriptor.ofVoid(layouts));
      return new CFunction(kernel, signature, handle, lifecycle);
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
      return "C module " + name + " on " + CpuDevice.this.name();
    }
  }

  /** A C kernel: one downcall handle, built once from the signature. */
  public final class CFunction implements KernelFunction {
    private final String name;
    private final KernelSignature signature;
    private final MethodHandle handle;
    private final MethodHandle spread;
    private final Lifecycle module;

    CFunction(String name, KernelSignature signature, MethodHandle handle, Lifecycle module) {
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
      String where = CpuDevice.this.name() + ", kernel " + name;
      signature.checkArguments(where, args);
      Object[] values = new Object[args.length];
      for (int i = 0; i < args.length; i++) {
        values[i] =
            switch (signature.get(i)) {
              case POINTER -> HostPointers.of(CpuDevice.this, where, i, args[i]);
              case INT32 -> args[i];
              case INT64 -> ((Number) args[i]).longValue();
              case FLOAT32 -> args[i];
              case FLOAT64 -> ((Number) args[i]).doubleValue();
            };
      }
      long status;
      try (Lifecycle.Use u = module.enter()) {
        status = (long) spread.invokeExact(values);
      } catch (RuntimeException | Error e) {
        throw e;
      } catch (Throwable t) {
        throw new DeviceException(where + ": " + t, t);
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
}
