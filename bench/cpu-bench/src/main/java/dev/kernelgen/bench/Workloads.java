package dev.kernelgen.bench;

import dev.kernelgen.json.Json;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** The benchmark's workloads: those of the seed article, plus a strided and a ragged one. */
public final class Workloads {
  /** Classpath copy of {@code shared/workloads/depthwise-seed.json}. */
  public static final String SEED_RESOURCE = "/depthwise-seed.json";

  private Workloads() {}

  /** The seed workloads followed by {@link #extras()}. */
  public static List<Workload> all() {
    List<Workload> all = new ArrayList<>(seed());
    all.addAll(extras());
    return List.copyOf(all);
  }

  /** The seed article's workloads, from the copy bundled with this module. */
  public static List<Workload> seed() {
    try (InputStream in = Workloads.class.getResourceAsStream(SEED_RESOURCE)) {
      if (in == null) {
        throw new IllegalStateException("resource " + SEED_RESOURCE + " is missing");
      }
      return parseSeed(new String(in.readAllBytes(), StandardCharsets.UTF_8));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** The workloads of a seed file laid out as {@code shared/workloads/depthwise-seed.json}. */
  public static List<Workload> load(Path seedFile) throws IOException {
    return parseSeed(Files.readString(seedFile));
  }

  /**
   * Workloads the article lacks: stride 2, and a ragged size (23 x 17) that no tile of 4, 8 or 16
   * divides, so generated kernels must handle partial tiles.
   */
  public static List<Workload> extras() {
    return List.of(
        Workload.of(1, 256, 96, 96, 1, 3, 2, Padding.SAME),
        Workload.of(1, 256, 23, 17, 1, 3, 1, Padding.SAME));
  }

  /** Reads the {@code workloads} array of a seed file; the {@code fused} entry repeats one. */
  public static List<Workload> parseSeed(String json) {
    Object parsed;
    try {
      parsed = Json.parse(json);
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException("seed file is not valid JSON: " + e.getMessage(), e);
    }
    if (!(parsed instanceof Map<?, ?> root)
        || !(root.get("workloads") instanceof List<?> entries)) {
      throw new IllegalArgumentException("seed file has no \"workloads\" array");
    }
    List<Workload> out = new ArrayList<>();
    for (Object entry : entries) {
      if (!(entry instanceof Map<?, ?> map)) {
        throw new IllegalArgumentException("workload entry is not an object: " + entry);
      }
      out.add(fromSeedEntry(map));
    }
    return List.copyOf(out);
  }

  private static Workload fromSeedEntry(Map<?, ?> map) {
    if (!(map.get("input") instanceof List<?> input) || input.size() != 4) {
      throw new IllegalArgumentException("workload \"input\" must be [n, c, h, w]: " + map);
    }
    String padding = String.valueOf(map.get("padding"));
    Padding mode;
    try {
      mode = Padding.valueOf(padding);
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException("workload padding must be SAME or VALID: " + padding);
    }
    return Workload.of(
        intOf(input.get(0), "input[0]"),
        intOf(input.get(1), "input[1]"),
        intOf(input.get(2), "input[2]"),
        intOf(input.get(3), "input[3]"),
        intOf(map.get("multiplier"), "multiplier"),
        intOf(map.get("kernel"), "kernel"),
        intOf(map.get("stride"), "stride"),
        mode);
  }

  private static int intOf(Object value, String field) {
    if (value instanceof Number num && num.doubleValue() == Math.rint(num.doubleValue())) {
      return Math.toIntExact(num.longValue());
    }
    throw new IllegalArgumentException("workload " + field + " must be an integer, got " + value);
  }

  /**
   * The workload list that {@code bench/gpu_torch.py} reads: objects with {@code workload, n, c, h,
   * w, multiplier, kernel, stride, pad_top, pad_left, pad_bottom, pad_right}.
   */
  public static String toGpuJson(List<Workload> workloads) {
    List<Object> list = new ArrayList<>();
    for (Workload w : workloads) {
      Map<String, Object> o = new LinkedHashMap<>();
      o.put("workload", w.name());
      o.put("n", w.n());
      o.put("c", w.c());
      o.put("h", w.h());
      o.put("w", w.w());
      o.put("multiplier", w.multiplier());
      o.put("kernel", w.kernel());
      o.put("stride", w.stride());
      o.put("pad_top", w.padTop());
      o.put("pad_left", w.padLeft());
      o.put("pad_bottom", w.padBottom());
      o.put("pad_right", w.padRight());
      list.add(o);
    }
    return Json.pretty(list);
  }
}
