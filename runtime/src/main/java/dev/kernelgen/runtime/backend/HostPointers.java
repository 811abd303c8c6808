package dev.kernelgen.runtime.backend;

import dev.kernelgen.runtime.Device;
import dev.kernelgen.runtime.HostBuffer;
import dev.kernelgen.runtime.HostTensor;
import java.lang.foreign.MemorySegment;

/** The pointer arguments of C and Java kernels: host memory that the kernel reads in place. */
public final class HostPointers {
  private HostPointers() {}

  /**
   * A tensor's memory, a host buffer's of {@code device}, or a segment as it is.
   *
   * @throws IllegalArgumentException naming the argument when it is none of these
   */
  public static MemorySegment of(Device device, String where, int index, Object arg) {
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
}
