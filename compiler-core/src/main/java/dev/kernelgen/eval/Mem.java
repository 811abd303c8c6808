package dev.kernelgen.eval;

import dev.kernelgen.te.DType;
import java.lang.foreign.MemorySegment;

/** A buffer as the IR interpreter sees it: its name for messages, elements, element count. */
record Mem(String name, DType dtype, MemorySegment segment, long size) {
  /**
   * A fresh buffer on the Java heap (cheap to allocate, as allocations run once per loop
   * iteration). Floating-point buffers are filled with NaN so that reads of memory nobody wrote
   * show up in results; integer buffers start at zero.
   */
  static Mem allocate(String name, DType dtype, long size) {
    int n = Math.toIntExact(size);
    MemorySegment seg =
        switch (dtype) {
          case FLOAT32 -> MemorySegment.ofArray(new float[n]);
          case FLOAT64 -> MemorySegment.ofArray(new double[n]);
          case INT32 -> MemorySegment.ofArray(new int[n]);
          case INT64 -> MemorySegment.ofArray(new long[n]);
          case BOOL -> MemorySegment.ofArray(new byte[n]);
        };
    if (dtype.isFloat()) {
      seg.fill((byte) 0xFF); // all-ones bits are a NaN in float32 and float64
    }
    return new Mem(name, dtype, seg, size);
  }
}
