package dev.kernelgen.runtime.launch;

import dev.kernelgen.annotations.Target;
import dev.kernelgen.runtime.DataType;
import dev.kernelgen.runtime.Device;
import dev.kernelgen.runtime.DeviceException;
import dev.kernelgen.runtime.Devices;
import dev.kernelgen.runtime.HostTensor;
import dev.kernelgen.runtime.KernelBinary;
import dev.kernelgen.runtime.LaunchConfig;
import dev.kernelgen.runtime.Lifecycle;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Consumer;
import java.util.function.Function;

/** What generated launchers share: device choice, embedded kernels, argument checks. */
public final class Launchers {
  /**
   * System property naming the target {@code load()} uses ({@code CUDA}, {@code OPENCL}, {@code C},
   * {@code JAVA}) instead of the best available one; the environment variable {@code
   * KERNELGEN_TARGET} does the same.
   */
  public static final String TARGET_PROPERTY = "kernelgen.target";

  private Launchers() {}

  /**
   * The device {@code load()} uses: the target named by {@link #TARGET_PROPERTY} (or {@code
   * KERNELGEN_TARGET}), else the fastest available device among the library's targets, in the order
   * of {@link Devices#ranked}.
   */
  public static Device device(String library, List<Target> targets) {
    String forced = System.getProperty(TARGET_PROPERTY);
    if (forced == null || forced.isBlank()) {
      forced = System.getenv("KERNELGEN_TARGET");
    }
    if (forced != null && !forced.isBlank()) {
      Target t;
      try {
        t = Target.valueOf(forced.strip().toUpperCase(Locale.ROOT));
      } catch (IllegalArgumentException e) {
        throw new IllegalArgumentException(
            TARGET_PROPERTY
                + "="
                + forced
                + " is not a target "
                + Arrays.toString(Target.values()));
      }
      if (!targets.contains(t)) {
        throw new IllegalArgumentException(
            TARGET_PROPERTY + "=" + t + " but library " + library + " has kernels for " + targets);
      }
      Devices.Probe p = Devices.probe(t);
      return p.device()
          .orElseThrow(
              () ->
                  new DeviceException(
                      TARGET_PROPERTY + "=" + t + " but there is no such device: " + p.detail()));
    }
    // Only the library's targets are probed: a C and Java library never loads a GPU driver.
    List<Device> ranked = Devices.ranked(targets);
    if (!ranked.isEmpty()) {
      return ranked.getFirst();
    }
    throw new DeviceException(
        "library "
            + library
            + " has kernels for "
            + targets
            + " but none of these devices is"
            + " available:\n"
            + Devices.probes().stream()
                .filter(p -> targets.contains(p.target()))
                .map(p -> p + "\n")
                .collect(java.util.stream.Collectors.joining()));
  }

  /**
   * The lifecycle of a launcher of {@code library} on {@code device}: its operators throw {@link
   * IllegalStateException} once it is closed, and closing waits for the calls in flight.
   */
  public static Lifecycle lifecycle(String library, Device device) {
    return new Lifecycle(
        new Object() {
          @Override
          public String toString() {
            return "launcher " + library + " on " + device.name();
          }
        });
  }

  /** The error for a device whose target the library was not built for. */
  public static DeviceException noKernels(String library, Device device, List<Target> targets) {
    return new DeviceException(
        "library "
            + library
            + " has no kernels for "
            + device.target()
            + " ("
            + device.name()
            + "); it was built for "
            + targets);
  }

  /** A resource of the class path, next to {@code anchor}'s class loader. */
  public static byte[] resource(Class<?> anchor, String path) {
    ClassLoader cl = anchor.getClassLoader();
    try (InputStream in = cl == null ? null : cl.getResourceAsStream(path)) {
      if (in == null) {
        throw new DeviceException(
            "embedded kernel resource "
                + path
                + " of "
                + anchor.getName()
                + " is not on the class path (was the jar built by the kernelgen plugin?)");
      }
      return in.readAllBytes();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /**
   * The embedded C shared libraries, one per ISA level: {@code isaPathSha256} holds triples of the
   * level ({@code x86-64-v3}), the resource path and the SHA-256 the build recorded.
   */
  public static KernelBinary.C c(String library, Class<?> anchor, String... isaPathSha256) {
    if (isaPathSha256.length == 0 || isaPathSha256.length % 3 != 0) {
      throw new IllegalArgumentException(
          "C libraries of " + library + ": expected (level, path, sha256) triples");
    }
    List<KernelBinary.C.Library> libs = new ArrayList<>();
    for (int i = 0; i < isaPathSha256.length; i += 3) {
      libs.add(
          new KernelBinary.C.Library(
              isaPathSha256[i], resource(anchor, isaPathSha256[i + 1]), isaPathSha256[i + 2]));
    }
    return new KernelBinary.C(library, libs);
  }

  /**
   * Loads a library's kernels with {@code load} on {@link #device}; where that is the C device and
   * its libraries cannot load here (no ISA level fits the CPU, a dependency is missing, the cache
   * refuses), on the Java device instead when the library has Java kernels and no target was forced
   * ({@link #TARGET_PROPERTY}). The reason is logged once per library (System.Logger {@code
   * dev.kernelgen.runtime.launch}, WARNING).
   */
  public static <T> T load(String library, List<Target> targets, Function<Device, T> load) {
    Device device = device(library, targets);
    if (device.target() != Target.C || !targets.contains(Target.JAVA) || forcedTarget() != null) {
      return load.apply(device);
    }
    try {
      return load.apply(device);
    } catch (DeviceException e) {
      if (FELL_BACK.add(library)) {
        LOG.log(
            System.Logger.Level.WARNING,
            "library "
                + library
                + ": the C kernels cannot run on this machine, running the Java kernels instead: "
                + e.getMessage());
      }
      Device java = Devices.probe(Target.JAVA).device().orElseThrow(() -> e);
      return load.apply(java);
    }
  }

  private static final System.Logger LOG = System.getLogger("dev.kernelgen.runtime.launch");
  private static final Set<String> FELL_BACK = ConcurrentHashMap.newKeySet();

  private static String forcedTarget() {
    String forced = System.getProperty(TARGET_PROPERTY);
    if (forced == null || forced.isBlank()) {
      forced = System.getenv("KERNELGEN_TARGET");
    }
    return forced == null || forced.isBlank() ? null : forced;
  }

  /** The embedded OpenCL C source. */
  public static KernelBinary.OpenCl openCl(String library, Class<?> anchor, String path) {
    return new KernelBinary.OpenCl(
        library, new String(resource(anchor, path), StandardCharsets.UTF_8));
  }

  /**
   * The embedded fatbin, checked against {@code sha256} when loaded; {@code architectures} says
   * what it holds ({@code sm_90}, {@code compute_90}).
   */
  public static KernelBinary.Cuda cudaFatbin(
      String library, Class<?> anchor, String path, String sha256, String... architectures) {
    return KernelBinary.Cuda.fatbin(
        library,
        new KernelBinary.Cuda.Fatbin(resource(anchor, path), sha256, List.of(architectures)));
  }

  /** The embedded PTX and cubins (by SM number). */
  public static KernelBinary.Cuda cuda(
      String library, Class<?> anchor, String ptxPath, Map<Integer, String> cubinPaths) {
    Map<Integer, byte[]> cubins = new TreeMap<>();
    for (var e : cubinPaths.entrySet()) {
      cubins.put(e.getKey(), resource(anchor, e.getValue()));
    }
    String ptx =
        ptxPath == null ? null : new String(resource(anchor, ptxPath), StandardCharsets.UTF_8);
    return new KernelBinary.Cuda(library, cubins, ptx);
  }

  /**
   * Checks an argument's dtype and rank; returns its shape.
   *
   * @throws IllegalArgumentException naming the operator and argument
   */
  public static long[] check(
      String op, String arg, DataType dtype, long[] shape, DataType expected, int rank) {
    if (dtype != expected) {
      throw new IllegalArgumentException(
          op + ": argument '" + arg + "' is " + dtype + ", expected " + expected);
    }
    if (shape.length != rank) {
      throw new IllegalArgumentException(
          op
              + ": argument '"
              + arg
              + "' has rank "
              + shape.length
              + " "
              + Arrays.toString(shape)
              + ", expected rank "
              + rank);
    }
    return shape;
  }

  /**
   * Checks one dim of an argument against its expected value.
   *
   * @param expectedText the dim as the spec wrote it ({@code c}, {@code (h - 2)})
   * @throws IllegalArgumentException naming the operator, argument and dim
   */
  public static void checkDim(
      String op, String arg, long[] shape, int axis, long expected, String expectedText) {
    if (shape[axis] != expected) {
      String is = expectedText.equals(Long.toString(expected)) ? "" : expectedText + " = ";
      throw new IllegalArgumentException(
          op
              + ": argument '"
              + arg
              + "' has "
              + shape[axis]
              + " at dim "
              + axis
              + " (shape "
              + Arrays.toString(shape)
              + "), expected "
              + is
              + expected);
    }
  }

  /**
   * Checks a condition the dims must meet for the kernels' reads to stay inside their tensors (a
   * broadcast read over dims the spec wrote apart).
   *
   * @param dims the dims the condition uses, as name and value pairs, for the message
   * @throws IllegalArgumentException naming the operator, the read and the dims
   */
  public static void require(String op, boolean holds, String what, Object... dims) {
    if (!holds) {
      StringBuilder values = new StringBuilder();
      for (int i = 0; i + 1 < dims.length; i += 2) {
        values
            .append(values.isEmpty() ? "" : ", ")
            .append(dims[i])
            .append(" = ")
            .append(dims[i + 1]);
      }
      throw new IllegalArgumentException(op + ": " + what + " (" + values + ")");
    }
  }

  /**
   * A dim of an output the inputs imply, checked not negative.
   *
   * @param text the dim as the spec wrote it ({@code (len - 2)})
   * @throws IllegalArgumentException naming the operator, the output and the dim
   */
  public static long outputDim(String op, String output, int axis, long value, String text) {
    if (value < 0) {
      String is = text.equals(Long.toString(value)) ? "" : text + " = ";
      throw new IllegalArgumentException(
          op
              + ": output '"
              + output
              + "' would have "
              + is
              + value
              + " elements at dim "
              + axis
              + ": the inputs are too small for it");
    }
    return value;
  }

  /**
   * Checks that a host tensor an allocator reads the shape of is still open (a launch finds out
   * when it reads the memory).
   *
   * @throws IllegalStateException naming the operator and the argument
   */
  public static void checkOpen(String op, String arg, HostTensor t) {
    if (t.isClosed()) {
      throw new IllegalStateException(op + ": argument '" + arg + "' (" + t + ") was closed");
    }
  }

  /** As above, for a device tensor (its buffer or its device closed). */
  public static void checkOpen(String op, String arg, DeviceTensor t) {
    if (t.buffer().isClosed()) {
      throw new IllegalStateException(op + ": argument '" + arg + "' (" + t + ") was closed");
    }
  }

  /** A symbolic dim bound from an argument, checked to fit a 32-bit kernel parameter. */
  public static long int32Dim(String op, String dim, long value) {
    if (value > Integer.MAX_VALUE) {
      throw new IllegalArgumentException(
          op + ": dim " + dim + " = " + value + " does not fit the kernels' 32-bit index type");
    }
    return value;
  }

  /** Checks that a device tensor lives on the launcher's device. */
  public static void checkDevice(String op, String arg, Device device, DeviceTensor t) {
    if (t.device() != device) {
      throw new IllegalArgumentException(
          op
              + ": argument '"
              + arg
              + "' is on "
              + t.device().name()
              + ", the kernels on "
              + device.name());
    }
  }

  /**
   * The launch configuration for extents computed from the dims; null when any is zero or less
   * (nothing to compute).
   */
  public static LaunchConfig config(String kernel, long... extents) {
    for (long e : extents) {
      if (e <= 0) {
        return null;
      }
      if (e > Integer.MAX_VALUE) {
        throw new IllegalArgumentException(
            "kernel "
                + kernel
                + ": launch extent "
                + e
                + " is too large "
                + Arrays.toString(extents));
      }
    }
    return new LaunchConfig(
        new int[] {(int) extents[0], (int) extents[1], (int) extents[2]},
        new int[] {(int) extents[3], (int) extents[4], (int) extents[5]},
        0);
  }

  /**
   * Runs {@code launch} on host tensors: directly on C and Java devices, which read host memory; on
   * GPUs through device copies of the inputs and outputs, copied back afterwards.
   */
  public static void onDevice(
      Device device, HostTensor[] inputs, HostTensor[] outputs, Consumer<Object[]> launch) {
    Object[] args = new Object[inputs.length + outputs.length];
    if (device.target() == Target.C || device.target() == Target.JAVA) {
      System.arraycopy(inputs, 0, args, 0, inputs.length);
      System.arraycopy(outputs, 0, args, inputs.length, outputs.length);
      launch.accept(args);
      return;
    }
    DeviceTensor[] copies = new DeviceTensor[args.length];
    Throwable failure = null;
    try {
      for (int i = 0; i < inputs.length; i++) {
        copies[i] = DeviceTensor.upload(device, inputs[i]);
      }
      for (int i = 0; i < outputs.length; i++) {
        copies[inputs.length + i] =
            DeviceTensor.allocate(device, outputs[i].dtype(), outputs[i].shape());
      }
      for (int i = 0; i < args.length; i++) {
        args[i] = copies[i].buffer();
      }
      launch.accept(args);
      for (int i = 0; i < outputs.length; i++) {
        copies[inputs.length + i].copyTo(outputs[i]);
      }
    } catch (RuntimeException | Error e) {
      failure = e;
      throw e;
    } finally {
      closeAll(copies, failure);
    }
  }

  /**
   * Closes every resource (nulls skipped), even when one fails: after a sticky CUDA error every
   * close fails too. A failure is added as suppressed to {@code primary} when there is one (the
   * error that matters is the launch's), else the first is thrown with the later ones suppressed.
   */
  public static void closeAll(AutoCloseable[] resources, Throwable primary) {
    RuntimeException first = null;
    for (AutoCloseable r : resources) {
      if (r == null) {
        continue;
      }
      try {
        r.close();
      } catch (Exception e) {
        if (primary != null) {
          primary.addSuppressed(e);
        } else if (first == null) {
          first = e instanceof RuntimeException re ? re : new DeviceException(e.toString(), e);
        } else {
          first.addSuppressed(e);
        }
      }
    }
    if (first != null) {
      throw first;
    }
  }
}
