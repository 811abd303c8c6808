package dev.kernelgen.te;

/** Element types of tensors and expressions. */
public enum DType {
  BOOL("bool", 1),
  INT32("int32", 4),
  INT64("int64", 8),
  FLOAT32("float32", 4),
  FLOAT64("float64", 8);

  private final String text;
  private final int bytes;

  DType(String text, int bytes) {
    this.text = text;
    this.bytes = bytes;
  }

  public boolean isFloat() {
    return this == FLOAT32 || this == FLOAT64;
  }

  public boolean isInt() {
    return this == INT32 || this == INT64;
  }

  public boolean isBool() {
    return this == BOOL;
  }

  /** Size of one element in bytes (bool is stored as one byte). */
  public int bytes() {
    return bytes;
  }

  @Override
  public String toString() {
    return text;
  }
}
