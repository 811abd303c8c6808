package dev.kernelgen.runtime;

import dev.kernelgen.annotations.Target;
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
    return new HostBuffer(this, dtype, count);
  }

  @Override
  public KernelModule loadModule(KernelBinary binary) {
    if (!(binary instanceof KernelBinary.C c)) {
      throw new DeviceException(name() + " runs C kernels, not " + describe(binary));
    }
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
  }

  @Override
  public DeviceTimer timer() {
    return new WallClockTimer();
  }

  @Override
  public void close() {}

  @Override
  public String toString() {
    return name();
  }

  private static boolean isLinux() {
    return System.getProperty("os.name", "").startsWith("Linux");
  }

  static String describe(KernelBinary b) {
    return b.getClass().getSimpleName() + " module " + b.name();
  }

  /** Host pointers for C and Java kernels: a tensor's or host buffer's memory, or a segment. */
  static MemorySegment hostPointer(Device device, String where, int index, Object arg) {
    return switch (arg) {
      case HostTensor t -> t.segment();
      case HostBuffer b when b.device() == device -> b.segment();
      case MemorySegment s -> s;
      default ->
          throw new IllegalArgumentException(
              where
                  + ": argument "
                  + index
                  + " ("
                  + arg
                  + ") is not host memory of "
                  + device.name());
    };
  }

  private final class CModule implements KernelModule {
    private final String name;
    private final Path file;
    private final Arena arena;
    private final SymbolLookup lookup;
    private final ConcurrentHashMap<String, CFunction> functions = new ConcurrentHashMap<>();

    CModule(String name, Path file, Arena arena, SymbolLookup lookup) {
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
      MethodHandle handle = linker.downcallHandle(symbol, FunctionDescriptor.ofVoid(layouts));
      return new CFunction(kernel, signature, handle);
    }

    /** The library stays loaded (see {@link CpuDevice#loadModule}); the module is released. */
    @Override
    public void close() {}
  }

  /** A C kernel: one downcall handle, built once from the signature. */
  public final class CFunction implements KernelFunction {
    private final String name;
    private final KernelSignature signature;
    private final MethodHandle handle;
    private final MethodHandle spread;

    CFunction(String name, KernelSignature signature, MethodHandle handle) {
      this.name = name;
      this.signature = signature;
      this.handle = handle;
      this.spread =
          handle
              .asSpreader(Object[].class, signature.size())
              .asType(MethodType.methodType(void.class, Object[].class));
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
     * The downcall handle itself ({@code void(MemorySegment..., int, long, ...)}), for launchers
     * that keep it in a static final and call it without boxing.
     */
    public MethodHandle methodHandle() {
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
              case POINTER -> hostPointer(CpuDevice.this, where, i, args[i]);
              case INT32 -> args[i];
              case INT64 -> ((Number) args[i]).longValue();
              case FLOAT32 -> args[i];
              case FLOAT64 -> ((Number) args[i]).doubleValue();
            };
      }
      try {
        spread.invokeExact(values);
      } catch (RuntimeException | Error e) {
        throw e;
      } catch (Throwable t) {
        throw new DeviceException(where + ": " + t, t);
      }
    }
  }
}
