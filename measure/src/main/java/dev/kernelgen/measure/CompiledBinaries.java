package dev.kernelgen.measure;

import dev.kernelgen.annotations.Target;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.function.Supplier;

/**
 * The binaries a {@link Builder} compiled, by target and SHA-256 of the source, the last {@link
 * #CAPACITY} kept: configurations of a space that print the same source (a knob that changes
 * nothing where another is set, such as the depthwise space's {@code unroll_taps} when {@code
 * row_block} unrolls the taps anyway) compile once. A second request for a source being compiled
 * waits for that compile. A failed compile is not kept: the next request compiles again.
 */
final class CompiledBinaries {
  static final int CAPACITY = 256;

  private final Map<String, CompletableFuture<byte[]>> byKey =
      new LinkedHashMap<>(16, 0.75f, true) {
        @Override
        protected boolean removeEldestEntry(Map.Entry<String, CompletableFuture<byte[]>> e) {
          return size() > CAPACITY;
        }
      };
  private int compiles;

  /** The binary of {@code source} for {@code target}: kept, or {@code compile}d now. */
  byte[] get(Target target, String source, Supplier<byte[]> compile) {
    String key = target + ":" + sha256(source);
    CompletableFuture<byte[]> f;
    boolean mine = false;
    synchronized (this) {
      f = byKey.get(key);
      if (f == null) {
        f = new CompletableFuture<>();
        byKey.put(key, f);
        compiles++;
        mine = true;
      }
    }
    if (mine) {
      try {
        f.complete(compile.get());
      } catch (RuntimeException | Error e) {
        synchronized (this) {
          byKey.remove(key, f);
        }
        f.completeExceptionally(e);
        throw e;
      }
    }
    try {
      return f.join();
    } catch (CompletionException e) {
      if (e.getCause() instanceof RuntimeException r) {
        throw r;
      }
      throw e;
    }
  }

  /** How many compiles were started (tests). */
  synchronized int compiles() {
    return compiles;
  }

  private static String sha256(String s) {
    try {
      return HexFormat.of()
          .formatHex(
              MessageDigest.getInstance("SHA-256").digest(s.getBytes(StandardCharsets.UTF_8)));
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException(e);
    }
  }
}
