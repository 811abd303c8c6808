package dev.kernelgen.autosched;

import java.util.TreeSet;

/**
 * The candidate sizes of one tile: the powers of two up to {@code cap} and the divisors of a
 * constant extent up to {@code cap}, none larger than the extent, {@code preferred} (or the largest
 * candidate under it) first. Tiles are constants even where the extent is symbolic: the loop then
 * gets a tail guard, and what is allocated per tile has a constant size.
 */
final class TileChoices {
  private TileChoices() {}

  /** Tile sizes for a loop of {@code extent} (-1 when it is symbolic). */
  static int[] of(long extent, int cap, int preferred) {
    return of(extent, cap, preferred, false);
  }

  /**
   * As {@link #of(long, int, int)}; a {@code vector} tile (the vectorized innermost loop) takes
   * only powers of two, so that the register tile is whole vectors.
   */
  static int[] of(long extent, int cap, int preferred, boolean vector) {
    TreeSet<Integer> c = new TreeSet<>();
    long max = extent > 0 ? Math.min(extent, cap) : cap;
    for (int p = 1; p <= max; p *= 2) {
      c.add(p);
    }
    if (extent > 0 && !vector) {
      for (int d = 1; d <= max; d++) {
        if (extent % d == 0) {
          c.add(d);
        }
      }
    }
    Integer first = c.floor(preferred);
    int[] r = new int[c.size()];
    r[0] = first;
    int n = 1;
    for (int v : c) {
      if (v != first) {
        r[n++] = v;
      }
    }
    return r;
  }
}
