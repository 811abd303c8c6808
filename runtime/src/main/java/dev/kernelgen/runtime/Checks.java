package dev.kernelgen.runtime;

/** Argument checks shared by the devices. */
final class Checks {
  private Checks() {}

  /** Checks that {@code t} matches buffer {@code b} in dtype and element count. */
  static void matches(DeviceBuffer b, HostTensor t, String op) {
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

  static long byteSize(DataType dtype, long count) {
    if (count < 0) {
      throw new IllegalArgumentException("negative element count: " + count);
    }
    return Math.multiplyExact(count, (long) dtype.byteSize());
  }

  /** The first line of a throwable's message, for probe reasons that fit on one line. */
  static String firstLine(Throwable t) {
    String m = t.getMessage();
    if (m == null) {
      return t.getClass().getSimpleName();
    }
    int nl = m.indexOf('\n');
    return (nl < 0 ? m : m.substring(0, nl)).strip();
  }
}
