package dev.kernelgen.measure;

import dev.kernelgen.eval.NDArray;
import dev.kernelgen.te.DType;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * A tensor's element type ({@link DType} name) and shape: what a runner allocates, reads from its
 * data directory or compares, without the compiler's IR.
 */
public record TensorSpec(String dtype, List<Long> shape) {
  public TensorSpec {
    DType.valueOf(Objects.requireNonNull(dtype, "dtype"));
    shape = List.copyOf(shape);
  }

  /** The spec of {@code a}. */
  public static TensorSpec of(NDArray a) {
    return new TensorSpec(a.dtype().name(), java.util.Arrays.stream(a.shape()).boxed().toList());
  }

  public DType type() {
    return DType.valueOf(dtype);
  }

  public long[] dims() {
    return shape.stream().mapToLong(Long::longValue).toArray();
  }

  public long elements() {
    long n = 1;
    for (long d : shape) {
      n *= d;
    }
    return n;
  }

  public long bytes() {
    return elements() * type().bytes();
  }

  Map<String, Object> toJson() {
    Map<String, Object> j = new LinkedHashMap<>();
    j.put("dtype", dtype);
    j.put("shape", shape);
    return j;
  }

  static TensorSpec fromJson(Object o) {
    Map<?, ?> j = (Map<?, ?>) o;
    return new TensorSpec(
        (String) j.get("dtype"),
        ((List<?>) j.get("shape")).stream().map(x -> ((Number) x).longValue()).toList());
  }
}
