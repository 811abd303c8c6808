package dev.kernelgen.tune;

import dev.kernelgen.eval.NDArray;
import dev.kernelgen.json.Json;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The expected outputs of tuning tasks, computed once and kept on disk, so that every candidate
 * that becomes a record is checked against them without running the oracle again (the
 * tensor-expression interpreter takes minutes at 4096³). An entry is a directory {@code
 * <operator>-<hash>} under the cache directory (the tuning directory's {@code references/}), the
 * hash over the operator, the argument shapes and dtypes, the inputs' seed ({@link #INPUT_SEED}:
 * input {@code k} is {@code NDArray.random(dtype, INPUT_SEED + k, shape)}, as every measurer draws
 * it) and {@link #VERSION}; it holds {@code out<i>.bin} (raw little-endian elements) and {@code
 * reference.json} (operator, shapes, seed, and {@code source}: which computation produced the
 * outputs). Entries are written to a temporary directory and moved into place, so a reader never
 * sees half an entry. The directory gets a {@code .gitignore} of {@code *}: the tuning logs beside
 * it are committed, the references (up to hundreds of megabytes at 4096²) are not.
 */
public final class ReferenceCache {
  /** The seed of input 0; input {@code k} uses {@code INPUT_SEED + k}. */
  public static final long INPUT_SEED = 17;

  /**
   * How references are computed, part of every entry's hash: entries of an earlier version are not
   * read. Version 2: float32 sums accumulated in double (version 1 summed in float, term by term).
   */
  static final int VERSION = 2;

  private final Path dir;

  public ReferenceCache(Path dir) {
    this.dir = dir;
  }

  /** The task's inputs: random, from {@link #INPUT_SEED}. */
  public static List<NDArray> inputs(TuningTask t) {
    List<NDArray> inputs = new ArrayList<>();
    for (int k = 0; k < t.def().inputs().size(); k++) {
      long[] shape = t.shape().get(k).stream().mapToLong(Long::longValue).toArray();
      inputs.add(NDArray.random(t.def().inputs().get(k).dtype(), INPUT_SEED + k, shape));
    }
    return inputs;
  }

  /** Where the task's entry lives. */
  public Path entry(TuningTask t) {
    StringBuilder key =
        new StringBuilder(t.operator()).append('|').append(INPUT_SEED).append("|v").append(VERSION);
    for (int i = 0; i < t.def().args().size(); i++) {
      key.append('|').append(t.def().args().get(i).dtype()).append(t.shape().get(i));
    }
    String hash;
    try {
      hash =
          HexFormat.of()
              .formatHex(
                  MessageDigest.getInstance("SHA-256")
                      .digest(key.toString().getBytes(StandardCharsets.UTF_8)))
              .substring(0, 16);
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException(e);
    }
    return dir.resolve(t.operator().replaceAll("[^A-Za-z0-9_.-]", "_") + "-" + hash);
  }

  /** The task's cached outputs, if an entry exists and holds every output at its size. */
  public Optional<List<NDArray>> load(TuningTask t) {
    Path e = entry(t);
    int nIn = t.def().inputs().size();
    List<NDArray> out = new ArrayList<>();
    for (int o = 0; o < t.def().outputs().size(); o++) {
      Path f = e.resolve("out" + o + ".bin");
      long[] shape = t.shape().get(nIn + o).stream().mapToLong(Long::longValue).toArray();
      var dtype = t.def().outputs().get(o).dtype();
      try {
        if (!Files.isRegularFile(f)) {
          return Optional.empty();
        }
        byte[] bytes = Files.readAllBytes(f);
        long n = 1;
        for (long d : shape) {
          n *= d;
        }
        if (bytes.length != n * dtype.bytes()) {
          return Optional.empty();
        }
        MemorySegment seg = Arena.ofAuto().allocate(bytes.length, 8);
        seg.copyFrom(MemorySegment.ofArray(bytes));
        out.add(NDArray.wrap(dtype, seg, shape));
      } catch (IOException ex) {
        return Optional.empty();
      }
    }
    return Optional.of(out);
  }

  /** What produced an entry ({@code source} of its {@code reference.json}), or empty. */
  public Optional<String> source(TuningTask t) {
    try {
      Object j = Json.parse(Files.readString(entry(t).resolve("reference.json")));
      return j instanceof Map<?, ?> m && m.get("source") instanceof String s
          ? Optional.of(s)
          : Optional.empty();
    } catch (IOException | RuntimeException e) {
      return Optional.empty();
    }
  }

  /** Stores the task's outputs, saying in {@code source} how they were computed. */
  public void store(TuningTask t, List<NDArray> outputs, String source) {
    Path e = entry(t);
    try {
      Files.createDirectories(dir);
      Path ignore = dir.resolve(".gitignore");
      if (!Files.exists(ignore)) {
        // A cache, large and regenerable: kept out of version control next to the committed logs.
        Files.writeString(ignore, "*\n");
      }
      Path tmp = Files.createTempDirectory(dir, ".tmp-");
      for (int o = 0; o < outputs.size(); o++) {
        Files.write(
            tmp.resolve("out" + o + ".bin"),
            outputs.get(o).segment().toArray(ValueLayout.JAVA_BYTE));
      }
      Map<String, Object> meta = new LinkedHashMap<>();
      meta.put("operator", t.operator());
      meta.put("shape", t.shape());
      meta.put("seed", INPUT_SEED);
      meta.put("source", source);
      Files.writeString(tmp.resolve("reference.json"), Json.line(meta) + "\n");
      try {
        Files.move(tmp, e, StandardCopyOption.ATOMIC_MOVE);
      } catch (IOException raced) {
        // Another build stored the same entry first: keep it.
        try (var files = Files.list(tmp)) {
          for (Path f : files.toList()) {
            Files.deleteIfExists(f);
          }
        }
        Files.deleteIfExists(tmp);
      }
    } catch (IOException ex) {
      throw new UncheckedIOException(
          "cannot store the reference of " + t.operator() + " in " + dir, ex);
    }
  }
}
