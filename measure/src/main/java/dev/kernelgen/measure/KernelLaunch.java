package dev.kernelgen.measure;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * One kernel of a built module and how it is launched: its name, how many pointer parameters it
 * takes (the module's buffers in order: inputs, outputs, temporaries) and its grid and block (three
 * sizes each; {@code 1, 1, 1} for C and Java kernels, which run on the host).
 */
public record KernelLaunch(String name, int params, List<Integer> grid, List<Integer> block) {
  public KernelLaunch {
    Objects.requireNonNull(name, "name");
    grid = List.copyOf(grid);
    block = List.copyOf(block);
    if (grid.size() != 3 || block.size() != 3) {
      throw new IllegalArgumentException("grid and block of " + name + " need three sizes each");
    }
  }

  /** A kernel run once on the host. */
  public static KernelLaunch host(String name, int params) {
    return new KernelLaunch(name, params, List.of(1, 1, 1), List.of(1, 1, 1));
  }

  Map<String, Object> toJson() {
    Map<String, Object> j = new LinkedHashMap<>();
    j.put("name", name);
    j.put("params", params);
    j.put("grid", grid);
    j.put("block", block);
    return j;
  }

  static KernelLaunch fromJson(Object o) {
    Map<?, ?> j = (Map<?, ?>) o;
    return new KernelLaunch(
        (String) j.get("name"),
        ((Number) j.get("params")).intValue(),
        ints(j.get("grid")),
        ints(j.get("block")));
  }

  private static List<Integer> ints(Object o) {
    return ((List<?>) o).stream().map(x -> ((Number) x).intValue()).toList();
  }
}
