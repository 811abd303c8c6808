package dev.kernelgen.eval;

import dev.kernelgen.te.Binary;
import dev.kernelgen.te.Reducer;
import java.util.List;

/**
 * The oracle's reductions: the reduce axes' loop nest run as compiled nodes, specialized by
 * combiner (sum, max, min without evaluating the combiner; any other combiner as an expression)
 * and, for sums of reads or of products of two reads proven in bounds, by stepping offsets (the
 * multiply-add loop of convolutions and matrix products).
 */
final class Reductions {
  private Reductions() {}

  /** Which combiner a reduction uses; the common ones run without evaluating the combiner. */
  enum Kind {
    SUM,
    MAX,
    MIN,
    GENERAL;

    static Kind of(Reducer r) {
      if (r.combine() instanceof Binary b
          && ((b.a() == r.x() && b.b() == r.y()) || (b.a() == r.y() && b.b() == r.x()))) {
        return switch (b.op()) {
          case ADD -> SUM;
          case MAX -> MAX;
          case MIN -> MIN;
          default -> GENERAL;
        };
      }
      return GENERAL;
    }
  }

  /** The reduce axes of a reduction: slots, bounds, the condition (null when always true). */
  record Loop(int[] slots, LongNode[] mins, LongNode[] extents, BoolNode cond) {}

  /** See {@code OperationCompiler.dotReduce}: a sum of reads or of products of two reads. */
  static final class DotReduce extends DoubleNode {
    private final int[] slots;
    private final LongNode[] mins;
    private final LongNode[] extents;
    private final DoubleNode identity;
    private final LinearIndex[] offsets;
    private final long[] strides;
    private final float[] fa;
    private final float[] fb;
    private final double[] da;
    private final double[] db;

    DotReduce(
        Loop loop,
        DoubleNode identity,
        List<Object> arrays,
        LinearIndex[] offsets,
        long[] strides) {
      this.slots = loop.slots();
      this.mins = loop.mins();
      this.extents = loop.extents();
      this.identity = identity;
      this.offsets = offsets;
      this.strides = strides;
      Object a = arrays.get(0);
      Object b = arrays.size() > 1 ? arrays.get(1) : null;
      this.fa = a instanceof float[] x ? x : null;
      this.fb = b instanceof float[] x ? x : null;
      this.da = a instanceof double[] x ? x : null;
      this.db = b instanceof double[] x ? x : null;
    }

    @Override
    double eval(Frame f) {
      double sum = loop(f, 0, identity.eval(f));
      return fa != null ? (float) sum : sum;
    }

    private double loop(Frame f, int level, double acc) {
      long lo = mins[level].eval(f);
      long hi = lo + extents[level].eval(f);
      int s = slots[level];
      long[] ints = f.ints;
      if (level < slots.length - 1) {
        for (long v = lo; v < hi; v++) {
          ints[s] = v;
          acc = loop(f, level + 1, acc);
        }
        return acc;
      }
      if (hi <= lo) {
        return acc;
      }
      ints[s] = lo;
      int n = (int) (hi - lo);
      int oa = (int) offsets[0].eval(f);
      int sa = (int) strides[0];
      if (fa != null) {
        // Each product rounds to float, as C does without FMA; the sum is kept in double (see
        // FloatReduce: the value, not one order's rounding errors).
        if (fb != null) {
          int ob = (int) offsets[1].eval(f);
          int sb = (int) strides[1];
          for (int k = 0; k < n; k++, oa += sa, ob += sb) {
            acc += fa[oa] * fb[ob];
          }
        } else {
          for (int k = 0; k < n; k++, oa += sa) {
            acc += fa[oa];
          }
        }
      } else if (db != null) {
        int ob = (int) offsets[1].eval(f);
        int sb = (int) strides[1];
        for (int k = 0; k < n; k++, oa += sa, ob += sb) {
          acc += da[oa] * db[ob];
        }
      } else {
        for (int k = 0; k < n; k++, oa += sa) {
          acc += da[oa];
        }
      }
      ints[s] = hi - 1;
      return acc;
    }
  }

  /** A floating-point reduction. */
  static final class FloatReduce extends DoubleNode {
    private final int[] slots;
    private final LongNode[] mins;
    private final LongNode[] extents;
    private final BoolNode cond;
    private final DoubleNode src;
    private final DoubleNode identity;
    private final Kind kind;
    private final boolean f32;
    private final DoubleNode combine;
    private final int xs;
    private final int ys;

    FloatReduce(
        Loop loop,
        DoubleNode src,
        DoubleNode identity,
        Kind kind,
        boolean f32,
        DoubleNode combine,
        int xs,
        int ys) {
      this.slots = loop.slots();
      this.mins = loop.mins();
      this.extents = loop.extents();
      this.cond = loop.cond();
      this.src = src;
      this.identity = identity;
      this.kind = kind;
      this.f32 = f32;
      this.combine = combine;
      this.xs = xs;
      this.ys = ys;
    }

    @Override
    double eval(Frame f) {
      double r = loop(f, 0, identity.eval(f));
      return f32 ? (float) r : r;
    }

    private double loop(Frame f, int level, double acc) {
      long lo = mins[level].eval(f);
      long hi = lo + extents[level].eval(f);
      int s = slots[level];
      long[] ints = f.ints;
      if (level < slots.length - 1) {
        for (long v = lo; v < hi; v++) {
          ints[s] = v;
          acc = loop(f, level + 1, acc);
        }
        return acc;
      }
      // The innermost loop, specialized per combiner: this is where the time goes.
      BoolNode c = cond;
      DoubleNode x = src;
      switch (kind) {
        case SUM -> {
          // A float32 sum too is kept in double and rounded once: the oracle gives the sum's
          // value, not one summation order's rounding errors. Summed in float one term after
          // another, the 16M squares of a [4096, 4096] tensor came out 2% low, and a kernel that
          // sums in vector lanes (closer to the value) was judged wrong against it.
          for (long v = lo; v < hi; v++) {
            ints[s] = v;
            if (c == null || c.eval(f)) {
              acc += x.eval(f);
            }
          }
        }
        case MAX -> {
          for (long v = lo; v < hi; v++) {
            ints[s] = v;
            if (c == null || c.eval(f)) {
              acc = Math.max(acc, x.eval(f));
            }
          }
        }
        case MIN -> {
          for (long v = lo; v < hi; v++) {
            ints[s] = v;
            if (c == null || c.eval(f)) {
              acc = Math.min(acc, x.eval(f));
            }
          }
        }
        case GENERAL -> {
          double[] d = f.doubles;
          for (long v = lo; v < hi; v++) {
            ints[s] = v;
            if (c == null || c.eval(f)) {
              double y = x.eval(f);
              d[xs] = acc;
              d[ys] = y;
              acc = combine.eval(f);
            }
          }
        }
      }
      return acc;
    }
  }

  /** An integer or boolean reduction: the combiner is evaluated as an expression. */
  static final class IntReduce extends LongNode {
    private final int[] slots;
    private final LongNode[] mins;
    private final LongNode[] extents;
    private final BoolNode cond;
    private final LongNode src;
    private final LongNode identity;
    private final LongNode combine;
    private final int xs;
    private final int ys;

    IntReduce(Loop loop, LongNode src, LongNode identity, LongNode combine, int xs, int ys) {
      this.slots = loop.slots();
      this.mins = loop.mins();
      this.extents = loop.extents();
      this.cond = loop.cond();
      this.src = src;
      this.identity = identity;
      this.combine = combine;
      this.xs = xs;
      this.ys = ys;
    }

    @Override
    long eval(Frame f) {
      return loop(f, 0, identity.eval(f));
    }

    private long loop(Frame f, int level, long acc) {
      long lo = mins[level].eval(f);
      long hi = lo + extents[level].eval(f);
      int s = slots[level];
      long[] ints = f.ints;
      for (long v = lo; v < hi; v++) {
        ints[s] = v;
        if (level < slots.length - 1) {
          acc = loop(f, level + 1, acc);
        } else if (cond == null || cond.eval(f)) {
          long y = src.eval(f);
          ints[xs] = acc;
          ints[ys] = y;
          acc = combine.eval(f);
        }
      }
      return acc;
    }
  }
}
