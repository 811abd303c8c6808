package dev.kernelgen.algo;

import static dev.kernelgen.te.TE.compute;
import static dev.kernelgen.te.TE.select;
import static dev.kernelgen.te.TE.shape;

import dev.kernelgen.arith.Simplifier;
import dev.kernelgen.te.BinOp;
import dev.kernelgen.te.Binary;
import dev.kernelgen.te.ComputeOp;
import dev.kernelgen.te.Expr;
import dev.kernelgen.te.ExprMutator;
import dev.kernelgen.te.FloatImm;
import dev.kernelgen.te.IntImm;
import dev.kernelgen.te.IterVar;
import dev.kernelgen.te.Reduce;
import dev.kernelgen.te.Tensor;
import dev.kernelgen.te.TensorGraph;
import dev.kernelgen.te.TensorRead;
import dev.kernelgen.te.Var;
import java.util.ArrayList;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;

/**
 * Finds the direct 3x3, stride-1, undilated convolutions of an operator's compute DAG, however the
 * user wrote them, and rewrites the DAG to compute them by Winograd's F(m x m, 3 x 3) ({@link
 * Winograd}); the auto-scheduler offers the rewritten DAG as another sketch.
 *
 * <p>A stage matches when it is {@code out[n, f, i, j] = sum over c, di, dj of x[n, c, i + di, j +
 * dj] * w[f, c, di, dj]} (either operand first, the reduce axes in any order, {@code di} and {@code
 * dj} over 0..2, every axis from 0) in float32 or float64, with no condition on the reduction:
 * {@code topi}'s {@code conv2dNchw} at stride 1 and dilation 1, or a user's own loop. Whatever
 * produces {@code x} (a padding stage, another operator's output) stays as it is; the stages that
 * read the convolution (an epilogue: bias, batch norm, an activation) are rebuilt to read the
 * rewritten one. Other layouts, strides and filter sizes do not match.
 */
public final class ConvRewrite {
  private ConvRewrite() {}

  /** A direct convolution: the stage, what it reads, its reduction over input channels. */
  public record Match(Tensor conv, Tensor input, Tensor filter, IterVar rc) {}

  /** The direct 3x3 convolutions of {@code outputs}' DAG, producers first. */
  public static List<Match> matches(List<Tensor> outputs) {
    List<Match> out = new ArrayList<>();
    for (Tensor t : TensorGraph.producersFirst(outputs)) {
      Match c = match(t);
      if (c != null) {
        out.add(c);
      }
    }
    return out;
  }

  /**
   * {@code outputs} with every matching convolution of their DAG computed by F(m x m, 3 x 3), in
   * order (shapes, dtypes and names as before); null where nothing matches.
   */
  public static List<Tensor> winograd(List<Tensor> outputs, int m) {
    // Producers first: a convolution reads the rewrite of what it read (an earlier one, rewritten).
    Map<Tensor, Tensor> replaced = new IdentityHashMap<>();
    int convs = 0;
    for (Tensor t : TensorGraph.producersFirst(outputs)) {
      Match c = match(t);
      if (c != null) {
        Match r =
            new Match(
                t,
                replaced.getOrDefault(c.input(), c.input()),
                replaced.getOrDefault(c.filter(), c.filter()),
                c.rc());
        replaced.put(t, winograd(r, m, convs == 0 ? "" : "_" + convs));
        convs++;
      } else if (t.op() instanceof ComputeOp op && readsAny(op, replaced)) {
        replaced.put(t, rebuilt(op, replaced));
      }
    }
    if (convs == 0) {
      return null;
    }
    List<Tensor> out = new ArrayList<>();
    for (Tensor t : outputs) {
      out.add(replaced.getOrDefault(t, t));
    }
    return out;
  }

  /** {@code t}'s convolution, or null where {@code t} is not a direct 3x3 convolution. */
  static Match match(Tensor t) {
    if (!(t.op() instanceof ComputeOp op)
        || !t.dtype().isFloat()
        || op.axis().size() != 4
        || !(op.body() instanceof Reduce r)
        || r.axes().size() != 3
        || !isSum(r)
        || !r.condition().equals(IntImm.ofBool(true))
        || !(r.source() instanceof Binary b)
        || b.op() != BinOp.MUL
        || !(b.a() instanceof TensorRead ra)
        || !(b.b() instanceof TensorRead rb)) {
      return null;
    }
    for (IterVar iv : op.axis()) {
      if (!isZero(iv.dom().min())) {
        return null;
      }
    }
    Match m = match(t, op, r, ra, rb);
    return m != null ? m : match(t, op, r, rb, ra);
  }

  /** The match where {@code x} is the input and {@code w} the filter, or null. */
  private static Match match(Tensor t, ComputeOp op, Reduce r, TensorRead x, TensorRead w) {
    if (x.indices().size() != 4 || w.indices().size() != 4) {
      return null;
    }
    List<Var> ax = op.axis().stream().map(IterVar::var).toList();
    IterVar rc = reduceAxis(r, w.indices().get(1));
    IterVar di = reduceAxis(r, w.indices().get(2));
    IterVar dj = reduceAxis(r, w.indices().get(3));
    if (rc == null
        || di == null
        || dj == null
        || rc == di
        || rc == dj
        || di == dj
        || !isZero(rc.dom().min())
        || !window(di)
        || !window(dj)
        || !w.indices().get(0).equals(ax.get(1))
        || !x.indices().get(0).equals(ax.get(0))
        || !x.indices().get(1).equals(rc.var())
        || !isZero(x.indices().get(2).sub(ax.get(2)).sub(di.var()))
        || !isZero(x.indices().get(3).sub(ax.get(3)).sub(dj.var()))) {
      return null;
    }
    return new Match(t, x.tensor(), w.tensor(), rc);
  }

  /**
   * The convolution of {@code c} by F(m x m, 3 x 3), its stages' names ending in {@code suffix}.
   */
  private static Tensor winograd(Match c, int m, String suffix) {
    List<Expr> out = c.conv().shape();
    Expr outH = out.get(2);
    Expr outW = out.get(3);
    Expr rows = Simplifier.simplify(Winograd.tiles(outH, m).mul(m).add(2));
    Expr cols = Simplifier.simplify(Winograd.tiles(outW, m).mul(m).add(2));
    boolean raggedH = !isZero(rows.sub(outH).sub(2));
    boolean raggedW = !isZero(cols.sub(outW).sub(2));
    Tensor x = c.input();
    // The ragged last tiles read zeros past the rows and columns the convolution reads.
    Tensor padded =
        compute(
            "WinogradPadded" + suffix,
            shape(out.get(0), c.rc().dom().extent(), rows, cols),
            (n, ch, y, z) -> {
              Expr inside = IntImm.ofBool(true);
              if (raggedH) {
                inside = y.lt(outH.add(2));
              }
              if (raggedW) {
                inside = inside.and(z.lt(outW.add(2)));
              }
              Expr read = x.at(n, ch, y, z);
              return raggedH || raggedW ? select(inside, read, new FloatImm(x.dtype(), 0)) : read;
            });
    return Winograd.conv3x3(
        c.conv().name(),
        suffix,
        padded,
        c.filter(),
        c.rc().dom().extent(),
        out.get(1),
        outH,
        outW,
        m);
  }

  private static boolean isSum(Reduce r) {
    var c = r.combiner();
    return c.combine().equals(c.x().add(c.y()))
        && c.identity().equals(new FloatImm(c.x().dtype(), 0));
  }

  private static IterVar reduceAxis(Reduce r, Expr index) {
    for (IterVar iv : r.axes()) {
      if (index.equals(iv.var())) {
        return iv;
      }
    }
    return null;
  }

  private static boolean window(IterVar iv) {
    return isZero(iv.dom().min())
        && Simplifier.simplify(iv.dom().extent()) instanceof IntImm e
        && e.value() == 3;
  }

  private static boolean isZero(Expr e) {
    return Simplifier.simplify(e) instanceof IntImm i && i.value() == 0;
  }

  /** The tensors of the DAG, producers first. */
  private static boolean readsAny(ComputeOp op, Map<Tensor, Tensor> replaced) {
    return op.inputs().stream().anyMatch(replaced::containsKey);
  }

  /** {@code op} reading the replacements of the tensors it read (its axes kept). */
  private static Tensor rebuilt(ComputeOp op, Map<Tensor, Tensor> replaced) {
    Expr body =
        new ExprMutator() {
          @Override
          public Expr mutate(Expr e) {
            if (e instanceof TensorRead r && replaced.containsKey(r.tensor())) {
              return TensorRead.of(replaced.get(r.tensor()), mutateAll(r.indices()));
            }
            return mutateChildren(e);
          }
        }.mutate(op.body());
    return new ComputeOp(op.name(), op.axis(), body, op.tag()).output();
  }
}
