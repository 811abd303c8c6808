package dev.kernelgen.autosched;

import dev.kernelgen.arith.Simplifier;
import dev.kernelgen.te.Expr;
import dev.kernelgen.te.IntImm;
import dev.kernelgen.te.Tensor;
import java.util.List;

/**
 * How the CPU row form ({@link CpuRowWindow}, and the library's hand-written depthwise schedule)
 * cuts a plane: into bands of rows whose producer fits in L1, or, a small plane, summed whole at
 * its source's pitch.
 */
public final class RowBands {
  private RowBands() {}

  /**
   * The bytes of a producer computed per band: L1 (32 KiB on Zen 3 and 4, 48 KiB on recent Xeons)
   * holds it beside the row buffer and the output row. The hand-written schedule measured it:
   * [1,256,96,96] 3x3 SAME (a 38 KiB padded plane) 10-20% faster in bands of 8-20 rows than whole,
   * on a 2-core Zen 4 (AVX-512).
   */
  public static final long BAND_BYTES = 8 * 1024;

  /** The fewest rows a band has: fewer would copy each input row as often as the window's rows. */
  static final int MIN_BAND_ROWS = 4;

  /**
   * Output rows per band of {@code source} (the producer computed per band) so that a band's rows
   * fit {@link #BAND_BYTES}, as even as the row count allows; 0 where the whole plane fits, or
   * where a size is symbolic.
   */
  public static int bandRows(Tensor source, long outRows) {
    List<Expr> ps = source.shape();
    if (outRows <= 0
        || ps.size() < 2
        || !(Simplifier.simplify(ps.get(ps.size() - 2)) instanceof IntImm ph)
        || !(Simplifier.simplify(ps.get(ps.size() - 1)) instanceof IntImm pw)) {
      return 0;
    }
    long rowBytes = pw.value() * source.dtype().bytes();
    long inputRowsPerRow = Math.max(1, ph.value() / outRows);
    long fit = BAND_BYTES / (rowBytes * inputRowsPerRow);
    if (fit >= outRows || ph.value() * rowBytes <= BAND_BYTES) {
      return 0;
    }
    long rows = Math.max(fit, MIN_BAND_ROWS);
    long bands = (outRows + rows - 1) / rows;
    return (int) ((outRows + bands - 1) / bands);
  }

  /**
   * The pitch at which a small plane is summed whole, or 0 for row by row: where the plane the
   * window reads ({@code source}) fits in {@link #BAND_BYTES}, the window slides by one column, and
   * the output's rows ({@code width}) are not whole vectors at every ISA level (16 floats). The sum
   * is then stored in rows of the source's pitch, so that {@code lower.CoalescePitchedRows} runs
   * the plane as one vectorized loop instead of a short vector and a remainder per row:
   * [1,256,21,21] 3x3 SAME ran 50-60 us by rows, 35-37 us so, on a 2-core Zen 4 (AVX-512).
   */
  public static long planePitch(Tensor source, long width, boolean unitStride) {
    List<Expr> ss = source.shape();
    if (!unitStride
        || width <= 0
        || ss.size() < 2
        || !(Simplifier.simplify(ss.get(ss.size() - 2)) instanceof IntImm rows)
        || !(Simplifier.simplify(ss.get(ss.size() - 1)) instanceof IntImm pitch)) {
      return 0;
    }
    boolean fits = rows.value() * pitch.value() * source.dtype().bytes() <= BAND_BYTES;
    boolean ragged = width % 16 != 0;
    return fits && ragged && width < pitch.value() ? pitch.value() : 0;
  }
}
