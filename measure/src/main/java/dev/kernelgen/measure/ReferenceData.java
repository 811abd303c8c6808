package dev.kernelgen.measure;

import dev.kernelgen.eval.NDArray;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.stream.Stream;

/**
 * A task's reference data on disk, as runners read it: the inputs as {@code 0.bin, 1.bin, ...} and
 * the oracle's outputs as {@code expected0.bin, ...}, raw little-endian elements. A directory, so
 * that a C harness process reads it and a distributed runner copies it.
 */
public final class ReferenceData {
  private ReferenceData() {}

  /** Writes {@code inputs} and {@code expected} (null: not yet known) into a new directory. */
  public static Path write(List<NDArray> inputs, List<NDArray> expected) {
    Path dir = tempDir("kernelgen-tune-data");
    // Deleted at exit in the reverse order: the files, then the directory.
    dir.toFile().deleteOnExit();
    for (int i = 0; i < inputs.size(); i++) {
      writeArray(dir.resolve(i + ".bin"), inputs.get(i));
    }
    if (expected != null) {
      writeExpected(dir, expected);
    }
    return dir;
  }

  /** Adds the expected outputs to {@code dir}. */
  public static void writeExpected(Path dir, List<NDArray> expected) {
    for (int o = 0; o < expected.size(); o++) {
      writeArray(dir.resolve("expected" + o + ".bin"), expected.get(o));
    }
  }

  /** The inputs of {@code build} read from {@code dir}. */
  public static List<NDArray> inputs(Path dir, BuildResult build) {
    List<NDArray> out = new ArrayList<>();
    for (int i = 0; i < build.inputs(); i++) {
      out.add(read(dir.resolve(i + ".bin"), build.params().get(i)));
    }
    return out;
  }

  /** The expected outputs of {@code build} read from {@code dir}. */
  public static List<NDArray> expected(Path dir, BuildResult build) {
    List<NDArray> out = new ArrayList<>();
    for (int o = build.inputs(); o < build.params().size(); o++) {
      out.add(read(dir.resolve("expected" + (o - build.inputs()) + ".bin"), build.params().get(o)));
    }
    return out;
  }

  /** {@code file}'s elements as an array of {@code spec}. */
  public static NDArray read(Path file, TensorSpec spec) {
    byte[] bytes = readBytes(file);
    if (bytes.length != spec.bytes()) {
      throw new UncheckedIOException(
          new IOException(
              file + " holds " + bytes.length + " bytes, " + spec + " needs " + spec.bytes()));
    }
    MemorySegment seg = Arena.ofAuto().allocate(Math.max(1, bytes.length), 8);
    seg.copyFrom(MemorySegment.ofArray(bytes));
    return NDArray.wrap(spec.type(), seg.asSlice(0, bytes.length), spec.dims());
  }

  /**
   * The first difference of {@code got} from the expected outputs of {@code build} in {@code dir}
   * ({@code output 0: ...}), or null when all match within {@code tolerance}.
   */
  public static String compare(Path dir, BuildResult build, List<NDArray> got, double tolerance) {
    return compare(expected(dir, build), got, tolerance);
  }

  /** The first difference of {@code got} from {@code expected}, or null when all match. */
  public static String compare(List<NDArray> expected, List<NDArray> got, double tolerance) {
    for (int o = 0; o < expected.size(); o++) {
      String diff = NDArray.compare(expected.get(o), got.get(o), tolerance, tolerance);
      if (diff != null) {
        return "output " + o + ": " + diff;
      }
    }
    return null;
  }

  private static void writeArray(Path file, NDArray a) {
    try {
      Files.write(file, a.segment().toArray(ValueLayout.JAVA_BYTE));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    file.toFile().deleteOnExit();
  }

  static byte[] readBytes(Path p) {
    try {
      return Files.readAllBytes(p);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  static Path tempDir(String prefix) {
    try {
      return Files.createTempDirectory(prefix);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** Deletes {@code dir} and everything in it; what cannot be deleted stays. */
  public static void deleteTree(Path dir) {
    if (dir == null || !Files.exists(dir)) {
      return;
    }
    try (Stream<Path> files = Files.walk(dir)) {
      for (Path f : files.sorted(Comparator.reverseOrder()).toList()) {
        Files.deleteIfExists(f);
      }
    } catch (IOException e) {
      // A temporary directory left behind is harmless.
    }
  }
}
