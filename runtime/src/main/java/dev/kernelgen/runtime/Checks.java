package dev.kernelgen.runtime;

import java.lang.foreign.MemorySegment;

/** Argument checks shared by the devices and the generated launchers. */
public final class Checks {
  private Checks() {}

  /**
   * Rejects an output that aliases an input or another output: the same tensor or buffer, or host
   * memory that overlaps. Kernels take their pointers as {@code restrict} (C, CUDA, OpenCL), so
   * aliasing is undefined behaviour there and silently wrong in Java; on a GPU, host tensors would
   * hide it by copying. Inputs may alias each other: they are only read.
   *
   * @param names the arguments' names, comma-separated, in the order of {@code args}
   * @param inputs how many of {@code args} (the first) are inputs
   * @param args host tensors, device buffers or memory segments, inputs first
   * @throws IllegalArgumentException naming both arguments
   */
  public static void noAliasing(String op, String names, int inputs, Object... args) {
    for (int o = inputs; o < args.length; o++) {
      for (int i = 0; i < o; i++) {
        if (aliases(args[o], args[i])) {
          String[] n = names.split(",");
          throw new IllegalArgumentException(
              op
                  + ": output '"
                  + n[o].strip()
                  + "' aliases "
                  + (i < inputs ? "input '" : "output '")
                  + n[i].strip()
                  + "' ("
                  + (args[o] == args[i] ? "the same " + kind(args[o]) : "overlapping memory")
                  + "); pass a separate "
                  + kind(args[o])
                  + " for each output");
        }
      }
    }
  }

  private static String kind(Object a) {
    return a instanceof HostTensor ? "tensor" : a instanceof MemorySegment ? "segment" : "buffer";
  }

  private static boolean aliases(Object a, Object b) {
    if (a == b) {
      return true;
    }
    MemorySegment x = hostMemory(a);
    MemorySegment y = hostMemory(b);
    return x != null
        && y != null
        && x.byteSize() > 0
        && y.byteSize() > 0
        && x.asOverlappingSlice(y).isPresent();
  }

  /** The host memory of an argument, or null for device memory (compared by identity). */
  private static MemorySegment hostMemory(Object a) {
    return switch (a) {
      case HostTensor t -> t.segment();
      case HostBuffer b -> b.segment();
      case MemorySegment s -> s;
      default -> null;
    };
  }

  /** Checks that {@code t} matches buffer {@code b} in dtype and element count. */
  public static void matches(DeviceBuffer b, HostTensor t, String op) {
    if (b.dtype() != t.dtype() || b.count() != t.elementCount()) {
      throw new IllegalArgumentException(
          op
              + ": buffer of "
              + b.count()
              + " "
              + b.dtype()
              + " on "
              + b.device().name()
              + " does not match "
              + t);
    }
  }

  /**
   * The bytes of {@code count} elements of {@code dtype}; throws on a negative count or overflow.
   */
  public static long byteSize(DataType dtype, long count) {
    if (count < 0) {
      throw new IllegalArgumentException("negative element count: " + count);
    }
    return Math.multiplyExact(count, (long) dtype.byteSize());
  }

  /** The first line of a throwable's message, for probe reasons that fit on one line. */
  public static String firstLine(Throwable t) {
    String m = t.getMessage();
    if (m == null) {
      return t.getClass().getSimpleName();
    }
    int nl = m.indexOf('\n');
    return (nl < 0 ? m : m.substring(0, nl)).strip();
  }
}
