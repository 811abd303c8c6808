package dev.kernelgen.tune;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** A tuning log survives bad lines and concurrent writers (issue 12, "Tuning log"). */
class TuningLogTest {
  @TempDir Path dir;

  private static final List<List<Long>> SHAPE = List.of(List.of(4L, 8L));

  private static TuningRecord record(int tile, double us) {
    return new TuningRecord(
        "Lib/op",
        "C",
        "cpu",
        Map.of(),
        SHAPE,
        Configuration.of(Map.of("tile", tile)),
        List.of(),
        "OK",
        us,
        us,
        "",
        "");
  }

  private static String line(int tile, String median) {
    return record(tile, 1.0).toJson().replace("\"median_us\":1.0", "\"median_us\":" + median);
  }

  private List<TuningRecord> read(Path log, List<String> warnings) {
    return TuningLog.read(log, warnings::add);
  }

  @Test
  void anInvalidUtf8ByteSkipsItsLineOnly() throws Exception {
    Path log = dir.resolve("Lib.jsonl");
    byte[] bad = (record(2, 5.0).toJson() + "\n").getBytes(StandardCharsets.UTF_8);
    bad[bad.length - 10] = (byte) 0xC3; // a lead byte without its continuation
    Files.write(log, bad);
    Files.writeString(log, record(4, 3.0).toJson() + "\n", java.nio.file.StandardOpenOption.APPEND);
    List<String> warnings = new ArrayList<>();
    List<TuningRecord> rs = read(log, warnings);
    assertThat(rs).containsExactly(record(4, 3.0));
    assertThat(warnings).singleElement().asString().contains(log + ":1").contains("UTF-8");
  }

  /** A compressed log (bench/tuning keeps them as .jsonl.xz) is named once, not line by line. */
  @Test
  void aCompressedLogIsOneWarningThatSaysHowToUnpackIt() throws Exception {
    Path xz = dir.resolve("gpu.jsonl.xz");
    Files.write(xz, new byte[] {(byte) 0xFD, '7', 'z', 'X', 'Z', 0, 4, 10, 10, 10, 10});
    List<String> warnings = new ArrayList<>();
    assertThat(read(xz, warnings)).isEmpty();
    assertThat(warnings)
        .singleElement()
        .asString()
        .contains("xz-compressed")
        .contains("xz -dk " + xz);
    Path gz = dir.resolve("gpu.jsonl.gz");
    java.io.ByteArrayOutputStream bytes = new java.io.ByteArrayOutputStream();
    try (var out = new java.util.zip.GZIPOutputStream(bytes)) {
      out.write((record(4, 3.0).toJson() + "\n").repeat(3).getBytes(StandardCharsets.UTF_8));
    }
    Files.write(gz, bytes.toByteArray());
    warnings.clear();
    assertThat(read(gz, warnings)).isEmpty();
    assertThat(warnings).singleElement().asString().contains("gzip-compressed");
    // Appending to it is refused, the file left as it was.
    byte[] before = Files.readAllBytes(gz);
    assertThatThrownBy(() -> TuningLog.append(gz, List.of(record(8, 2.0))))
        .hasMessageContaining("gzip-compressed")
        .hasMessageContaining("would corrupt it");
    assertThat(Files.readAllBytes(gz)).isEqualTo(before);
  }

  @Test
  void nonPositiveNaNAndMistypedTimesDoNotWin() throws Exception {
    Path log = dir.resolve("Lib.jsonl");
    Files.writeString(
        log,
        String.join(
            "\n",
            line(1, "-3.0"),
            line(2, "0"),
            line(3, "\"fast\""),
            line(4, "null"),
            record(8, 7.5).toJson(),
            ""));
    List<String> warnings = new ArrayList<>();
    List<TuningRecord> rs = read(log, warnings);
    assertThat(rs).containsExactly(record(8, 7.5));
    assertThat(warnings).hasSize(4);
    for (int i = 0; i < 4; i++) {
      assertThat(warnings.get(i)).contains(log + ":" + (i + 1));
    }
    assertThat(warnings.get(0)).contains("positive times").contains("-3.0");
    assertThat(warnings.get(2)).contains("median_us").contains("not a number");
    assertThat(TuningLog.best(rs, "Lib/op", "C", SHAPE, null).best()).contains(record(8, 7.5));
  }

  @Test
  void deepNestingAndTruncatedLinesAreSkipped() throws Exception {
    Path log = dir.resolve("Lib.jsonl");
    String good = record(8, 7.5).toJson();
    Files.writeString(
        log,
        "[".repeat(1_000_000)
            + "\n{\"format\":1,\"operator\":"
            + "[".repeat(100)
            + "\n"
            + good
            + "\n"
            + good.substring(0, good.length() / 2));
    List<String> warnings = new ArrayList<>();
    List<TuningRecord> rs = read(log, warnings);
    assertThat(rs).containsExactly(record(8, 7.5));
    assertThat(warnings).hasSize(3);
    assertThat(warnings.get(0)).contains(log + ":1").contains("nesting depth");
    assertThat(warnings.get(1)).contains(log + ":2").contains("nesting depth");
    assertThat(warnings.get(2)).contains(log + ":4");
  }

  /**
   * While another process holds the log's lock, an append waits for it, so the other process's line
   * and ours never interleave. The other process is a JVM running a one-file program.
   */
  @Test
  void appendWaitsForAnotherProcessesLock() throws Exception {
    Path log = dir.resolve("Lib.jsonl");
    Path holder = dir.resolve("LockHolder.java");
    Files.writeString(
        holder,
        """
        import java.nio.channels.FileChannel;
        import java.nio.file.*;
        public class LockHolder {
          public static void main(String[] a) throws Exception {
            try (FileChannel ch = FileChannel.open(Path.of(a[0]), StandardOpenOption.CREATE,
                    StandardOpenOption.WRITE, StandardOpenOption.APPEND);
                var lock = ch.lock()) {
              System.out.println("locked");
              System.out.flush();
              System.in.read();
              ch.write(java.nio.ByteBuffer.wrap("other process\\n".getBytes()));
            }
          }
        }
        """);
    Path java = Path.of(System.getProperty("java.home"), "bin", "java");
    Process p =
        new ProcessBuilder(java.toString(), holder.toString(), log.toString())
            .redirectErrorStream(true)
            .start();
    try (BufferedReader out =
            new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8));
        OutputStream in = p.getOutputStream()) {
      assertThat(out.readLine()).isEqualTo("locked");
      CompletableFuture<Void> append =
          CompletableFuture.runAsync(() -> TuningLog.append(log, List.of(record(8, 7.5))));
      Thread.sleep(700);
      assertThat(append).as("append waits while another process holds the lock").isNotDone();
      in.write('\n');
      in.flush();
      append.get(30, TimeUnit.SECONDS);
    } finally {
      assertThat(p.waitFor(30, TimeUnit.SECONDS)).isTrue();
    }
    assertThat(Files.readAllLines(log)).containsExactly("other process", record(8, 7.5).toJson());
  }
}
