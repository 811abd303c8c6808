package dev.kernelgen.tune;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import java.util.TreeSet;
import java.util.function.Consumer;
import java.util.stream.Stream;

/**
 * Tuning logs: files of {@link TuningRecord}s, one JSON object per line, appended to as trials end
 * (so an interrupted tuning run keeps what it measured and resumes from there). A line that is not
 * a record of this format, for example one written by a newer version or cut off by a crash, is
 * reported and skipped; it never fails a build.
 */
public final class TuningLog {
  private TuningLog() {}

  /** The records of {@code file}, in order; none when it does not exist. */
  public static List<TuningRecord> read(Path file, Consumer<String> warn) {
    List<TuningRecord> out = new ArrayList<>();
    if (!Files.isRegularFile(file)) {
      return out;
    }
    List<String> lines;
    try {
      lines = Files.readAllLines(file, StandardCharsets.UTF_8);
    } catch (IOException e) {
      warn.accept("cannot read tuning log " + file + ": " + e.getMessage() + "; ignoring it");
      return out;
    }
    for (int i = 0; i < lines.size(); i++) {
      String line = lines.get(i).strip();
      if (line.isEmpty()) {
        continue;
      }
      try {
        out.add(TuningRecord.parse(line));
      } catch (IllegalArgumentException e) {
        warn.accept("tuning log " + file + ":" + (i + 1) + ": skipping a line: " + e.getMessage());
      }
    }
    return out;
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

  /** Appends {@code records} to {@code file}, creating it and its directory as needed. */
  public static synchronized void append(Path file, List<TuningRecord> records) {
    if (records.isEmpty()) {
      return;
    }
    StringBuilder sb = new StringBuilder();
    for (TuningRecord r : records) {
      sb.append(r.toJson()).append('\n');
    }
    try {
      Path parent = file.toAbsolutePath().getParent();
      if (parent != null) {
        Files.createDirectories(parent);
      }
      Files.writeString(
          file,
          sb,
          StandardCharsets.UTF_8,
          StandardOpenOption.CREATE,
          StandardOpenOption.APPEND,
          StandardOpenOption.WRITE);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot append to tuning log " + file, e);
    }
  }

  /** The best record found for a key, or why there is none. */
  public record Lookup(Optional<TuningRecord> best, String reason) {
    static Lookup none(String reason) {
      return new Lookup(Optional.empty(), reason);
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
      return Lookup.none(
          "the tuning log has records of several devices "
              + devices
              + ": configure the device to use (kernels.tuningDevice)");
    }
    return new Lookup(ok.stream().min(Comparator.comparingDouble(TuningRecord::medianUs)), "");
  }
}
