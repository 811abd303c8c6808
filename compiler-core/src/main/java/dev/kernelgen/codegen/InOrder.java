package dev.kernelgen.codegen;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;

/**
 * Work run at once (compiler processes, mostly) read back in a fixed order, so that which failure a
 * build reports does not depend on which run ended first.
 */
public final class InOrder {
  private InOrder() {}

  /**
   * Each run's value, in the map's order, once every run has ended (none is left writing behind an
   * error); the first failure in that order is thrown.
   */
  public static <K, V> Map<K, V> join(Map<K, CompletableFuture<V>> runs) {
    Map<K, V> out = new LinkedHashMap<>();
    Throwable first = null;
    for (var e : runs.entrySet()) {
      try {
        out.put(e.getKey(), e.getValue().join());
      } catch (CompletionException x) {
        if (first == null) {
          first = x.getCause();
        }
      }
    }
    if (first instanceof RuntimeException re) {
      throw re;
    }
    if (first instanceof Error err) {
      throw err;
    }
    if (first != null) {
      throw new IllegalStateException(first);
    }
    return out;
  }
}
