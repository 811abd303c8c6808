package dev.kernelgen.testing;

import dev.kernelgen.codegen.CCodegen;
import dev.kernelgen.codegen.NativeToolchain;
import dev.kernelgen.te.Buffer;
import dev.kernelgen.te.DType;
import dev.kernelgen.te.Var;
import dev.kernelgen.tir.PrimFunc;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemoryLayout;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.SymbolLookup;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Generated C kernels compiled with {@link NativeToolchain} into a temporary shared library and
 * called through FFM downcall handles: buffers as addresses, symbolic dims as int or long per their
 * dtype.
 *
 * <p>Libraries stay loaded until the JVM exits: a library built with {@code -fopenmp} must never be
 * unloaded (dlclose) while OpenMP's worker threads live, or they crash in unmapped code.
 */
public final class CKernels {
  private final Map<String, PrimFunc> funcs = new LinkedHashMap<>();
  private final Map<String, MethodHandle> handles = new LinkedHashMap<>();
  private final String source;

  private CKernels(String source, List<PrimFunc> funcs) {
    this.source = source;
    Path lib;
    try {
      lib = Files.createTempFile("kernelgen-test", ".so");
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    lib.toFile().deleteOnExit();
    NativeToolchain.fromEnvironment().compileSharedLibrary(source, lib);
    SymbolLookup lookup = SymbolLookup.libraryLookup(lib, Arena.global());
    Linker linker = Linker.nativeLinker();
    for (PrimFunc f : funcs) {
      List<MemoryLayout> args = new ArrayList<>();
      f.params().forEach(b -> args.add(ValueLayout.ADDRESS));
      f.scalars().forEach(v -> args.add(scalarLayout(v)));
      MemorySegment symbol =
          lookup
              .find(f.name())
              .orElseThrow(() -> new AssertionError("no symbol " + f.name() + " in " + lib));
      this.funcs.put(f.name(), f);
      handles.put(
          f.name(),
          linker.downcallHandle(
              symbol, FunctionDescriptor.ofVoid(args.toArray(MemoryLayout[]::new))));
    }
  }

  private static ValueLayout scalarLayout(Var v) {
    if (v.dtype() == DType.INT32) {
      return ValueLayout.JAVA_INT;
    }
    if (v.dtype() == DType.INT64) {
      return ValueLayout.JAVA_LONG;
    }
    throw new IllegalArgumentException("scalar parameter " + v + " has dtype " + v.dtype());
  }

  /** Compiles {@code cSource}, which defines {@code funcs}, and loads it. */
  public static CKernels load(String cSource, List<PrimFunc> funcs) {
    return new CKernels(cSource, funcs);
  }

  /** Generates C for {@code funcs} with {@link CCodegen}, compiles and loads it. */
  public static CKernels load(List<PrimFunc> funcs) {
    return new CKernels(CCodegen.generate(funcs, "test_kernels"), funcs);
  }

  public String source() {
    return source;
  }

  /** Calls a function with its buffers (in parameter order) and its symbolic dims. */
  public void invoke(String fn, List<MemorySegment> buffers, long... scalars) {
    PrimFunc f = funcs.get(fn);
    if (f == null) {
      throw new IllegalArgumentException("no function " + fn + " in " + funcs.keySet());
    }
    if (buffers.size() != f.params().size() || scalars.length != f.scalars().size()) {
      throw new IllegalArgumentException(
          fn
              + " takes "
              + f.params().stream().map(Buffer::name).toList()
              + " and "
              + f.scalars()
              + ", got "
              + buffers.size()
              + " buffers and "
              + scalars.length
              + " scalars");
    }
    List<Object> args = new ArrayList<>(buffers);
    for (int i = 0; i < scalars.length; i++) {
      args.add(
          f.scalars().get(i).dtype() == DType.INT32
              ? (Object) Math.toIntExact(scalars[i])
              : scalars[i]);
    }
    try {
      handles.get(fn).invokeWithArguments(args);
    } catch (RuntimeException | Error e) {
      throw e;
    } catch (Throwable t) {
      throw new RuntimeException(t);
    }
  }
}
