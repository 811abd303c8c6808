package dev.kernelgen.runtime.backend;

import dev.kernelgen.runtime.KernelFunction;
import dev.kernelgen.runtime.KernelSignature;
import java.util.Collection;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.BiFunction;

/**
 * A module's kernels, bound once by name: launchers ask for their function on every launch. A
 * kernel asked for again with another signature is refused, naming both.
 *
 * @param <F> the backend's function
 */
public final class FunctionCache<F extends KernelFunction> {
  private final String kind;
  private final Map<String, F> functions = new ConcurrentHashMap<>();

  /**
   * @param kind the kind of kernel, for messages: {@code "CUDA kernel"}
   */
  public FunctionCache(String kind) {
    this.kind = kind;
  }

  /** The function of {@code kernel}, bound by {@code bind} the first time. */
  public F get(
      String kernel, KernelSignature signature, BiFunction<String, KernelSignature, F> bind) {
    F f = functions.computeIfAbsent(kernel, k -> bind.apply(k, signature));
    if (!f.signature().equals(signature)) {
      throw new IllegalArgumentException(
          kind + " " + kernel + " was bound with " + f.signature() + ", not " + signature);
    }
    return f;
  }

  /** The functions bound so far. */
  public Collection<F> bound() {
    return functions.values();
  }

  public void clear() {
    functions.clear();
  }
}
