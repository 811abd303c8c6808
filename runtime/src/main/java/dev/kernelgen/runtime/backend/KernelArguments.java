package dev.kernelgen.runtime.backend;

import dev.kernelgen.runtime.KernelSignature;

/**
 * The marshalling of a launch's arguments by parameter kind, written once for every backend: each
 * scalar is converted to its parameter's type (an Integer widens to a long, a Float to a double)
 * and handed to the backend's {@link Sink}, each pointer handed over as it is, for the backend to
 * check that it is memory of its device. The arguments are checked against the signature first
 * ({@link KernelSignature#checkArguments}).
 */
public final class KernelArguments {
  private KernelArguments() {}

  /** Where a backend puts the arguments: a parameter array, a kernel's argument slots. */
  public interface Sink {
    void pointer(int index, Object arg);

    void int32(int index, int value);

    void int64(int index, long value);

    void float32(int index, float value);

    void float64(int index, double value);
  }

  /** Hands {@code args}, checked before against {@code signature}, to {@code sink} in order. */
  public static void marshal(KernelSignature signature, Object[] args, Sink sink) {
    for (int i = 0; i < args.length; i++) {
      Object a = args[i];
      switch (signature.get(i)) {
        case POINTER -> sink.pointer(i, a);
        case INT32 -> sink.int32(i, (Integer) a);
        case INT64 -> sink.int64(i, ((Number) a).longValue());
        case FLOAT32 -> sink.float32(i, (Float) a);
        case FLOAT64 -> sink.float64(i, ((Number) a).doubleValue());
      }
    }
  }

  /** The message for a pointer argument that is not memory of {@code what}. */
  public static IllegalArgumentException notABuffer(
      String where, int index, Object arg, String what) {
    return new IllegalArgumentException(
        where + ": argument " + index + " (" + arg + ") is not a buffer on " + what);
  }
}
