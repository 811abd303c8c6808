package dev.kernelgen.tune;

import dev.kernelgen.diag.UserError;
import dev.kernelgen.json.Json;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import java.util.TreeSet;
import java.util.function.Consumer;
import java.util.stream.Stream;

/**
 * Tuning logs: files of {@link TuningRecord}s, one JSON object per line, appended to as trials end
 * (so an interrupted tuning run keeps what it measured and resumes from there). A line that is not
 * a valid record of this format (not UTF-8, cut off by a crash, nested beyond {@link
 * Json#MAX_DEPTH}, a member of the wrong type, a successful time that is not a positive number, or
 * one written by another version) is skipped with a warning naming the file and line; it never
 * fails a build. Writers take an exclusive lock on the file and append whole lines with one write,
 * so several {@code kernels:tune} processes can share a log; readers take a shared lock.
 */
public final class TuningLog {
  /** File locks are held per JVM: one thread of this JVM at a time touches a log. */
  private static final Object JVM_LOCK = new Object();

  private TuningLog() {}

  /** The records of {@code file}, in order; none when it does not exist. */
  public static List<TuningRecord> read(Path file, Consumer<String> warn) {
    List<TuningRecord> out = new ArrayList<>();
    if (!Files.isRegularFile(file)) {
      return out;
    }
    byte[] bytes;
    try {
      bytes = readLocked(file);
    } catch (IOException e) {
      warn.accept("cannot read tuning log " + file + ": " + e.getMessage() + "; ignoring it");
      return out;
    }
    String packed = compression(bytes);
    if (packed != null) {
      // A committed log kept compressed (bench/tuning/*.jsonl.xz): one warning, not one per line.
      warn.accept(
          "tuning log "
              + file
              + " is "
              + packed
              + "-compressed: unpack it first ("
              + packed
              + " -dk "
              + file
              + "); ignoring it");
      return out;
    }
    int lineNo = 0;
    for (int start = 0; start < bytes.length; ) {
      int end = start;
      while (end < bytes.length && bytes[end] != '\n') {
        end++;
      }
      lineNo++;
      String why = null;
      try {
        String line = utf8(bytes, start, end).strip();
        if (!line.isEmpty()) {
          out.add(TuningRecord.parse(line));
        }
      } catch (CharacterCodingException e) {
        why = "not valid UTF-8";
      } catch (IllegalArgumentException e) {
        why = e.getMessage();
      }
      if (why != null) {
        warn.accept("tuning log " + file + ":" + lineNo + ": skipping a line: " + why);
      }
      start = end + 1;
    }
    return out;
  }

  /** "xz" or "gzip" where {@code bytes} begin with that format's magic number, else null. */
  private static String compression(byte[] bytes) {
    byte[] xz = {(byte) 0xFD, '7', 'z', 'X', 'Z', 0};
    if (bytes.length >= xz.length && Arrays.equals(bytes, 0, xz.length, xz, 0, xz.length)) {
      return "xz";
    }
    if (bytes.length >= 2 && bytes[0] == (byte) 0x1F && bytes[1] == (byte) 0x8B) {
      return "gzip";
    }
    return null;
  }

  private static String utf8(byte[] bytes, int from, int to) throws CharacterCodingException {
    return StandardCharsets.UTF_8
        .newDecoder()
        .onMalformedInput(CodingErrorAction.REPORT)
        .onUnmappableCharacter(CodingErrorAction.REPORT)
        .decode(ByteBuffer.wrap(bytes, from, to - from))
        .toString();
  }

  private static byte[] readLocked(Path file) throws IOException {
    synchronized (JVM_LOCK) {
      try (FileChannel ch = FileChannel.open(file, StandardOpenOption.READ);
          FileLock lock = ch.lock(0, Long.MAX_VALUE, true)) {
        long size = ch.size();
        if (size > Integer.MAX_VALUE - 8) {
          throw new IOException("file too large (" + size + " bytes)");
        }
        ByteBuffer buf = ByteBuffer.allocate((int) size);
        while (buf.hasRemaining() && ch.read(buf) >= 0) {}
        return Arrays.copyOf(buf.array(), buf.position());
      }
    }
  }

  /** The records of every {@code *.jsonl} file under {@code dir}, files in name order. */
  public static List<TuningRecord> readDirectory(Path dir, Consumer<String> warn) {
    List<TuningRecord> out = new ArrayList<>();
    if (dir == null || !Files.isDirectory(dir)) {
      return out;
    }
    try (Stream<Path> files = Files.walk(dir)) {
      for (Path f : files.filter(p -> p.toString().endsWith(".jsonl")).sorted().toList()) {
        out.addAll(read(f, warn));
      }
    } catch (IOException e) {
      warn.accept("cannot list tuning logs in " + dir + ": " + e.getMessage());
    }
    return out;
  }

  /**
   * Appends {@code records} to {@code file}, creating it and its directory as needed: under an
   * exclusive lock of the file, whole lines in one write, so that concurrent writers (other
   * processes included) never interleave within a line.
   */
  public static void append(Path file, List<TuningRecord> records) {
    if (records.isEmpty()) {
      return;
    }
    StringBuilder sb = new StringBuilder();
    for (TuningRecord r : records) {
      sb.append(r.toJson()).append('\n');
    }
    ByteBuffer bytes = ByteBuffer.wrap(sb.toString().getBytes(StandardCharsets.UTF_8));
    try {
      Path parent = file.toAbsolutePath().getParent();
      if (parent != null) {
        Files.createDirectories(parent);
      }
      String packed = null;
      if (Files.isRegularFile(file)) {
        try (var in = Files.newInputStream(file)) {
          packed = compression(in.readNBytes(6));
        }
      }
      if (packed != null) {
        // Plain lines after a compressed stream would spoil it for every reader.
        throw new UserError(
            "tuning log "
                + file
                + " is "
                + packed
                + "-compressed: appending to it would corrupt it; unpack it first ("
                + packed
                + " -dk "
                + file
                + ") and tune into the unpacked file");
      }
      synchronized (JVM_LOCK) {
        try (FileChannel ch =
                FileChannel.open(
                    file,
                    StandardOpenOption.CREATE,
                    StandardOpenOption.WRITE,
                    StandardOpenOption.APPEND);
            FileLock lock = ch.lock()) {
          // One write for every line; the loop only continues a write the OS cut short.
          while (bytes.hasRemaining()) {
            ch.write(bytes);
          }
        }
      }
    } catch (IOException e) {
      throw new UncheckedIOException("cannot append to tuning log " + file, e);
    }
  }

  /**
   * The best record found for a key, or why there is none; {@code ambiguous} where records exist
   * but none can be chosen (they are of several devices).
   */
  public record Lookup(Optional<TuningRecord> best, String reason, boolean ambiguous) {
    static Lookup none(String reason) {
      return new Lookup(Optional.empty(), reason, false);
    }
  }

  /**
   * The fastest successful record of {@code operator} for {@code target} and {@code shape}: on
   * {@code device} when it is given, else on the only device the log has records of for them.
   */
  public static Lookup best(
      List<TuningRecord> records,
      String operator,
      String target,
      List<List<Long>> shape,
      String device) {
    List<TuningRecord> ok = new ArrayList<>();
    for (TuningRecord r : records) {
      if (r.isOk()
          && r.medianUs() > 0
          && r.operator().equals(operator)
          && r.target().equals(target)
          && r.shape().equals(shape)
          && (device == null || r.device().equals(device))) {
        ok.add(r);
      }
    }
    if (ok.isEmpty()) {
      return Lookup.none(
          "no successful record"
              + (device == null ? "" : " on device '" + device + "'")
              + " in the tuning log");
    }
    TreeSet<String> devices = new TreeSet<>();
    ok.forEach(r -> devices.add(r.device()));
    if (devices.size() > 1) {
      return new Lookup(
          Optional.empty(),
          "the tuning log has records of several devices "
              + devices
              + ": configure the device to use (kernels.tuningDevice)",
          true);
    }
    return new Lookup(
        ok.stream().min(Comparator.comparingDouble(TuningRecord::medianUs)), "", false);
  }
}
