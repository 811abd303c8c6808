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
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.Consumer;

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

  /** The embedded C shared library. */
  public static KernelBinary.C c(String library, Class<?> anchor, String path) {
    return new KernelBinary.C(library, resource(anchor, path));
  }

  /** The embedded OpenCL C source. */
  public static KernelBinary.OpenCl openCl(String library, Class<?> anchor, String path) {
    return new KernelBinary.OpenCl(
        library, new String(resource(anchor, path), StandardCharsets.UTF_8));
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
