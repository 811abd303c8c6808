package dev.kernelgen.runtime;

import java.util.List;

/**
 * The parameters of a kernel, in order, as the code generator emitted them. A C kernel's downcall
 * handle is built from it; on GPUs it checks each launch's arguments before they reach the driver.
 */
public record KernelSignature(List<ParamKind> params) {

  /** How one parameter is passed. */
  public enum ParamKind {
    /** A buffer: a device pointer, an OpenCL buffer, or host memory for C and Java kernels. */
    POINTER,
    INT32,
    INT64,
    FLOAT32,
    FLOAT64
  }

  public KernelSignature {
    params = List.copyOf(params);
  }

  public static KernelSignature of(ParamKind... params) {
    return new KernelSignature(List.of(params));
  }

  public int size() {
    return params.size();
  }

  public ParamKind get(int i) {
    return params.get(i);
  }

  /**
   * Checks one launch's arguments against the parameter kinds: a buffer for each POINTER (checked
   * further by the device), an Integer for INT32, an Integer or Long for INT64, a Float for
   * FLOAT32, a Float or Double for FLOAT64.
   */
  public void checkArguments(String where, Object[] args) {
    if (args.length != params.size()) {
      throw new IllegalArgumentException(
          where + ": " + args.length + " arguments for " + params.size() + " parameters " + params);
    }
    for (int i = 0; i < args.length; i++) {
      Object a = args[i];
      boolean ok =
          switch (params.get(i)) {
            case POINTER -> a instanceof DeviceBuffer || a instanceof HostTensor;
            case INT32 -> a instanceof Integer;
            case INT64 -> a instanceof Long || a instanceof Integer;
            case FLOAT32 -> a instanceof Float;
            case FLOAT64 -> a instanceof Double || a instanceof Float;
          };
      if (!ok
          && !(params.get(i) == ParamKind.POINTER
              && a instanceof java.lang.foreign.MemorySegment)) {
        throw new IllegalArgumentException(
            where
                + ": argument "
                + i
                + " is "
                + (a == null ? "null" : a.getClass().getSimpleName())
                + ", parameter is "
                + params.get(i));
      }
    }
  }
}
