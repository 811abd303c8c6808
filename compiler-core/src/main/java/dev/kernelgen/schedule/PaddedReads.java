package dev.kernelgen.schedule;

import dev.kernelgen.arith.Simplifier;
import dev.kernelgen.te.BinOp;
import dev.kernelgen.te.Binary;
import dev.kernelgen.te.Expr;
import dev.kernelgen.te.ExprMutator;
import dev.kernelgen.te.IntImm;
import dev.kernelgen.te.Select;
import dev.kernelgen.te.TE;
import dev.kernelgen.te.Tensor;
import dev.kernelgen.te.TensorRead;
import java.util.ArrayList;
import java.util.List;

/**
 * The padded copy of {@link Schedule#pad} and the reads that go through it: {@code t.pad[i] =
 * select(i - before within t's bounds, t[i - before], value)}; a read {@code t[idx]} becomes {@code
 * t.pad[idx + before]}, and a select that gives {@code value} where its read leaves t's bounds
 * becomes that read alone (a window's padding written inside the sum, {@code sum(select(y + dy - 1
 * >= 0 && ..., x[y + dy - 1], 0) * w)}: the copy holds the zeros instead).
 */
public final class PaddedReads {
  private PaddedReads() {}

  /** The padded copy of {@code t}, named {@code name}. */
  static Tensor copy(String name, Tensor t, long[] before, long[] after, Expr value) {
    List<Expr> shape = new ArrayList<>();
    for (int d = 0; d < t.ndim(); d++) {
      shape.add(Simplifier.simplify(t.shape().get(d).add(before[d] + after[d])));
    }
    return TE.computeN(
        name,
        shape,
        i -> {
          Expr inside = null;
          List<Expr> at = new ArrayList<>();
          for (int d = 0; d < t.ndim(); d++) {
            Expr x = i.get(d);
            if (before[d] != 0) {
              inside = and(inside, x.ge(before[d]));
            }
            if (after[d] != 0) {
              inside = and(inside, x.lt(t.shape().get(d).add(before[d])));
            }
            at.add(before[d] == 0 ? x : x.sub(before[d]));
          }
          return inside == null ? t.at(at) : TE.select(inside, t.at(at), value);
        });
  }

  private static Expr and(Expr a, Expr b) {
    return a == null ? b : a.and(b);
  }

  /** {@code body} reading {@code padded} for {@code t}, its bounds selects dropped. */
  static Expr redirect(Expr body, Tensor t, Tensor padded, long[] before, Expr value) {
    return new ExprMutator() {
      @Override
      public Expr mutate(Expr e) {
        if (e instanceof Select s
            && s.trueValue() instanceof TensorRead r
            && r.tensor() == t
            && s.falseValue().equals(value)
            && testsBoundsOnly(s.cond(), r)) {
          return read(r);
        }
        Expr m = mutateChildren(e);
        return m instanceof TensorRead r && r.tensor() == t ? read(r) : m;
      }

      private Expr read(TensorRead r) {
        List<Expr> idx = new ArrayList<>();
        for (int d = 0; d < r.indices().size(); d++) {
          Expr i = mutate(r.indices().get(d));
          idx.add(before[d] == 0 ? i : Simplifier.simplify(i.add(before[d])));
        }
        return TensorRead.of(padded, idx);
      }
    }.mutate(body);
  }

  /**
   * Whether {@code cond} is a conjunction of tests of {@code r}'s indices against the bounds of its
   * tensor alone ({@code i + k - 1 >= 0}, {@code i + k - 1 < n}, or the same sides moved): where it
   * fails, the read is outside the tensor, and where it holds, inside along the dims it tests.
   */
  public static boolean testsBoundsOnly(Expr cond, TensorRead r) {
    for (Expr c : TE.conjuncts(cond)) {
      if (!(c instanceof Binary b) || !b.op().isComparison() || !b.a().dtype().isInt()) {
        return false;
      }
      boolean bound = false;
      for (int d = 0; d < r.indices().size() && !bound; d++) {
        bound = testsBound(b, r.indices().get(d), r.tensor().shape().get(d));
      }
      if (!bound) {
        return false;
      }
    }
    return true;
  }

  /** Whether {@code b} is {@code i >= 0} or {@code i < n} (or {@code <= n - 1}), rearranged. */
  private static boolean testsBound(Binary b, Expr i, Expr n) {
    // b as (a - b) op 0; a - b = s * i + k for a sign s and a constant k.
    Expr diff = b.a().sub(b.b());
    for (int s : new int[] {1, -1}) {
      if (!(Simplifier.simplify(diff.sub(i.mul(s))) instanceof IntImm k)) {
        continue;
      }
      // s * i + k op 0  <=>  i op' -s * k, with op' = op for s = 1 and flipped for s = -1.
      BinOp op = s == 1 ? b.op() : b.op().swapped();
      long c = -s * k.value();
      Long lower =
          switch (op) {
            case GE -> c;
            case GT -> c + 1;
            default -> null;
          };
      Long upper =
          switch (op) {
            case LT -> c;
            case LE -> c + 1;
            default -> null;
          };
      return lower != null && lower == 0
          || upper != null && n instanceof IntImm e && upper == e.value();
    }
    return false;
  }
}
