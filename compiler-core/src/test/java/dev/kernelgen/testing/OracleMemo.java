package dev.kernelgen.testing;

import dev.kernelgen.eval.NDArray;
import dev.kernelgen.te.Tensor;
import dev.kernelgen.te.Var;
import java.util.HashMap;
import java.util.Map;

/**
 * The oracle's values of a test's earlier {@link Check}s, for its later ones: a check of another
 * schedule of the same definition reads a tensor kept here instead of evaluating it again, when its
 * random inputs are those the value was computed from (the same tensors with the same seeds) and
 * its dims are the same. The value is the oracle's own output either way; this saves evaluating it
 * twice on large shapes (the depthwise convolution under the fused operator's scale_shift and relu,
 * at a batch of 32 images).
 */
public final class OracleMemo {
  private record Entry(Map<Tensor, Long> seeds, Map<Var, Long> dims, NDArray value) {}

  private final Map<Tensor, Entry> entries = new HashMap<>();

  /** The kept values that {@code seeds} (a check's inputs and their seeds) and {@code dims} fit. */
  Map<Tensor, NDArray> known(Map<Tensor, Long> seeds, Map<Var, Long> dims) {
    Map<Tensor, NDArray> out = new HashMap<>();
    for (var e : entries.entrySet()) {
      Entry x = e.getValue();
      boolean same = x.dims().equals(dims);
      for (var in : x.seeds().entrySet()) {
        same &= in.getValue().equals(seeds.get(in.getKey()));
      }
      if (same) {
        out.put(e.getKey(), x.value());
      }
    }
    return out;
  }

  /** Keeps {@code values}, computed from the inputs of {@code seeds} at {@code dims}. */
  void keep(Map<Tensor, NDArray> values, Map<Tensor, Long> seeds, Map<Var, Long> dims) {
    values.forEach((t, v) -> entries.put(t, new Entry(Map.copyOf(seeds), Map.copyOf(dims), v)));
  }

  /** How many values are kept (tests). */
  public int size() {
    return entries.size();
  }
}
