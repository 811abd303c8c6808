package dev.kernelgen.runtime;

import dev.kernelgen.runtime.backend.Sha256;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;

/** A kernel module as it was embedded in the jar, one form per target. */
public sealed interface KernelBinary {
  /** The kind and name, for messages: {@code "Cuda module add"}. */
  default String describe() {
    return getClass().getSimpleName() + " module " + name();
  }

  /** A short name for messages: the library or operator the module was generated for. */
  String name();

  /**
   * CUDA: cubins per SM architecture ({@code 90} for sm_90) and PTX for the driver to compile when
   * no cubin matches the device. Either may be missing, not both.
   */
  record Cuda(String name, Map<Integer, byte[]> cubins, String ptx, Fatbin fatbin)
      implements KernelBinary {
    public Cuda {
      Objects.requireNonNull(name, "name");
      cubins = java.util.Collections.unmodifiableMap(new TreeMap<>(cubins));
      if (cubins.isEmpty() && ptx == null && fatbin == null) {
        throw new IllegalArgumentException(
            "CUDA module " + name + " has neither cubin, PTX nor fatbin");
      }
    }

    /** Cubins and PTX, no fatbin. */
    public Cuda(String name, Map<Integer, byte[]> cubins, String ptx) {
      this(name, cubins, ptx, null);
    }

    /** A module of one fatbin, as the build embeds it. */
    public static Cuda fatbin(String name, Fatbin fatbin) {
      return new Cuda(name, Map.of(), null, Objects.requireNonNull(fatbin, "fatbin"));
    }

    /**
     * A fatbin: SASS for some architectures and PTX, loaded with {@code cuModuleLoadData}.
     *
     * @param bytes the fatbin
     * @param sha256 the hash the build recorded; the fatbin is loaded only if its bytes have it
     * @param architectures what it holds: {@code sm_90} (SASS), {@code compute_90} (PTX)
     */
    public record Fatbin(byte[] bytes, String sha256, List<String> architectures) {
      public Fatbin {
        Objects.requireNonNull(bytes, "bytes");
        Objects.requireNonNull(sha256, "sha256");
        architectures = List.copyOf(architectures);
      }

      /**
       * Whether a GPU of compute capability {@code sm} (90 for 9.0) runs it: SASS of the same major
       * version and no newer minor, or PTX of a virtual architecture no newer than the GPU.
       */
      public boolean runsOn(int sm) {
        for (String a : architectures) {
          int n = Integer.parseInt(a.substring(a.indexOf('_') + 1));
          if (a.startsWith("sm_") ? n / 10 == sm / 10 && n <= sm : n <= sm) {
            return true;
          }
        }
        return false;
      }
    }

    /** A module of PTX text only. */
    public static Cuda ptx(String name, String ptx) {
      return new Cuda(name, Map.of(), Objects.requireNonNull(ptx, "ptx"));
    }
  }

  /** OpenCL C source, built by the device's driver when loaded. */
  record OpenCl(String name, String source, String buildOptions) implements KernelBinary {
    public OpenCl {
      Objects.requireNonNull(name, "name");
      Objects.requireNonNull(source, "source");
      buildOptions = buildOptions == null ? "" : buildOptions;
    }

    public OpenCl(String name, String source) {
      this(name, source, "");
    }
  }

  /**
   * Shared libraries for this platform, compiled from C by the build, one per ISA level; the device
   * loads the best one the CPU supports ({@code dev.kernelgen.runtime.cpu.CpuIsa.select}).
   */
  record C(String name, List<Library> libraries) implements KernelBinary {
    public C {
      Objects.requireNonNull(name, "name");
      libraries = List.copyOf(libraries);
      if (libraries.isEmpty()) {
        throw new IllegalArgumentException("C module " + name + " has no shared library");
      }
    }

    /**
     * A library built for this machine's CPU ({@code -march=native}), checked against its own hash:
     * for tests and benchmarks that build and run in one place.
     */
    public C(String name, byte[] sharedLibrary) {
      this(name, List.of(new Library(Library.NATIVE, sharedLibrary, Sha256.of(sharedLibrary))));
    }

    /**
     * One ISA level's library.
     *
     * @param isaLevel the {@code -march} it was compiled for ({@code x86-64-v3}, {@code native})
     * @param bytes the library
     * @param sha256 the hash the build recorded; the library is loaded only if its bytes have it
     */
    public record Library(String isaLevel, byte[] bytes, String sha256) {
      /** The ISA level of a library compiled for the build machine's own CPU. */
      public static final String NATIVE = "native";

      public Library {
        Objects.requireNonNull(isaLevel, "isaLevel");
        Objects.requireNonNull(bytes, "bytes");
        Objects.requireNonNull(sha256, "sha256");
      }
    }
  }

  /** A generated Java class whose public static methods are the kernels. */
  record Java(String name, Class<?> kernels) implements KernelBinary {
    public Java {
      Objects.requireNonNull(name, "name");
      Objects.requireNonNull(kernels, "kernels");
    }

    public Java(Class<?> kernels) {
      this(kernels.getName(), kernels);
    }
  }
}
