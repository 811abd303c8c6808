package dev.kernelgen.runtime;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.Arrays;
import java.util.HexFormat;

/**
 * Extracts embedded shared libraries to files named by their content's SHA-256, so that a library
 * is written once per machine and every process loads the same file.
 *
 * <p>The directory is the system property {@code kernelgen.cache.dir} if set, else {@code
 * ${java.io.tmpdir}/kernelgen-cache}, else {@code ~/.cache/kernelgen} when the temporary directory
 * is not writable. A library is written to a temporary file in that directory and then renamed
 * atomically, so two processes (or threads) extracting the same library at once both end with a
 * complete file, and a reader never sees a partial one.
 */
public final class NativeLibraryCache {
  private final Path directory;

  public NativeLibraryCache(Path directory) {
    this.directory = directory;
  }

  /** The cache at the default location. */
  public static NativeLibraryCache standard() {
    String configured = System.getProperty("kernelgen.cache.dir");
    if (configured != null && !configured.isBlank()) {
      return new NativeLibraryCache(Path.of(configured));
    }
    Path tmp = Path.of(System.getProperty("java.io.tmpdir"), "kernelgen-cache");
    if (usable(tmp)) {
      return new NativeLibraryCache(tmp);
    }
    return new NativeLibraryCache(Path.of(System.getProperty("user.home"), ".cache", "kernelgen"));
  }

  public Path directory() {
    return directory;
  }

  /** The file holding {@code library}, written if it is not there yet (or was damaged). */
  public Path extract(byte[] library) {
    String digest = sha256(library);
    Path target = directory.resolve(digest + librarySuffix());
    try {
      if (Files.isRegularFile(target) && sameContent(target, library)) {
        return target;
      }
      Files.createDirectories(directory);
      Path temp = Files.createTempFile(directory, digest + "-", ".tmp");
      try {
        Files.write(temp, library);
        try {
          Files.move(temp, target, StandardCopyOption.ATOMIC_MOVE);
        } catch (AtomicMoveNotSupportedException e) {
          Files.move(temp, target, StandardCopyOption.REPLACE_EXISTING);
        }
      } finally {
        Files.deleteIfExists(temp);
      }
      return target;
    } catch (IOException e) {
      throw new UncheckedIOException(
          "cannot extract kernel library to "
              + target
              + " (set -Dkernelgen.cache.dir to a writable directory)",
          e);
    }
  }

  static String sha256(byte[] bytes) {
    try {
      return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(bytes));
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("SHA-256 is missing from this JDK", e);
    }
  }

  /** {@code .so}, {@code .dylib} or {@code .dll}: what the platform's loader expects. */
  static String librarySuffix() {
    String mapped = System.mapLibraryName("x");
    return mapped.substring(mapped.lastIndexOf('.'));
  }

  private static boolean sameContent(Path file, byte[] expected) throws IOException {
    // A crash between write and rename cannot leave a partial target, but a user could edit it.
    return Files.size(file) == expected.length && Arrays.equals(Files.readAllBytes(file), expected);
  }

  private static boolean usable(Path dir) {
    try {
      Files.createDirectories(dir);
      return Files.isWritable(dir);
    } catch (IOException | SecurityException e) {
      return false;
    }
  }
}
