package dev.kernelgen.driver;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.Comparator;
import java.util.HexFormat;

/** The driver's file writes and digests: unchecked, creating parent directories as needed. */
final class DriverFiles {
  private DriverFiles() {}

  /** The SHA-256 of {@code s}'s UTF-8 bytes, in hex. */
  static String sha(String s) {
    return sha256(s.getBytes(StandardCharsets.UTF_8));
  }

  /** The SHA-256 of {@code bytes}, in hex. */
  static String sha256(byte[] bytes) {
    try {
      return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(bytes));
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException(e);
    }
  }

  static byte[] readBytes(Path p) {
    try {
      return Files.readAllBytes(p);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  static void writeString(Path p, String s) {
    writeBytes(p, s.getBytes(StandardCharsets.UTF_8));
  }

  static void writeBytes(Path p, byte[] b) {
    try {
      Files.createDirectories(p.getParent());
      Files.write(p, b);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  static void createDirectories(Path p) {
    try {
      Files.createDirectories(p);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  static void move(Path from, Path to) {
    try {
      Files.move(from, to, StandardCopyOption.ATOMIC_MOVE);
    } catch (IOException e) {
      try {
        Files.move(from, to);
      } catch (IOException e2) {
        throw new UncheckedIOException(e2);
      }
    }
  }

  /** Deletes a directory tree, if it exists. */
  static void deleteTree(Path dir) {
    if (!Files.exists(dir)) {
      return;
    }
    try (var files = Files.walk(dir)) {
      for (Path f : files.sorted(Comparator.reverseOrder()).toList()) {
        Files.delete(f);
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
