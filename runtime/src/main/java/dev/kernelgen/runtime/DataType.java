package dev.kernelgen.runtime;

/** Element types of tensors and buffers, with their size in bytes as stored in memory. */
public enum DataType {
  FLOAT32(4),
  FLOAT64(8),
  INT32(4),
  INT64(8),
  /** One byte per element, 0 or 1, as C's {@code bool} and OpenCL's {@code uchar}. */
  BOOL(1);

  private final int byteSize;

  DataType(int byteSize) {
    this.byteSize = byteSize;
  }

  /** Size of one element in bytes. */
  public int byteSize() {
    return byteSize;
  }
}
