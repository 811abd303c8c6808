package dev.kernelgen.driver;

import dev.kernelgen.arith.ConstIntBound;
import dev.kernelgen.arith.Simplifier;
import dev.kernelgen.diag.UserError;
import dev.kernelgen.driver.LibraryModel.Requirement;
import dev.kernelgen.spec.OperatorDef;
import dev.kernelgen.te.BinOp;
import dev.kernelgen.te.Binary;
import dev.kernelgen.te.Cast;
import dev.kernelgen.te.ComputeOp;
import dev.kernelgen.te.DType;
import dev.kernelgen.te.Expr;
import dev.kernelgen.te.ExprPrinter;
import dev.kernelgen.te.FreeVars;
import dev.kernelgen.te.IntImm;
import dev.kernelgen.te.IterVar;
import dev.kernelgen.te.Tensor;
import dev.kernelgen.te.TensorRead;
import dev.kernelgen.te.Var;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * What the symbolic dims of an operator must satisfy for its reads to stay inside their tensors,
 * checked by the launcher before a launch: a read whose index is a sum of loop variables times
 * constants (each once), outside every select, as {@code b.at(j)} over {@code j < m} of a {@code b}
 * of {@code k} elements (a broadcast whose dims the user wrote apart: {@code m <= k} must hold, and
 * nothing else checks it; launched with {@code k} = 1 and {@code m} = 10^8, the C kernel's reads
 * killed the JVM). Requirements the simplifier proves for all dims are dropped; one it proves false
 * is a read that leaves its tensor at every launch, refused at build time. Constant indices over
 * constant dims are {@code schedule.ReadBounds}'s; indices read from tensors, divisions and clamps
 * are not judged.
 */
final class ReadRequirements {
  private ReadRequirements() {}

  static List<Requirement> of(OperatorDef def) {
    Map<String, Requirement> out = new LinkedHashMap<>();
    Map<Var, ConstIntBound> nonNegative = new HashMap<>();
    for (Var d : def.dims()) {
      nonNegative.put(d, new ConstIntBound(0, ConstIntBound.POS_INF));
    }
    for (Tensor t : def.graph()) {
      if (!(t.op() instanceof ComputeOp op)) {
        continue;
      }
      List<IterVar> axes = new ArrayList<>(op.axis());
      axes.addAll(op.reduceAxis());
      Map<Var, IterVar> byVar = new HashMap<>();
      Expr empty = IntImm.of(DType.BOOL, 0); // no iteration at all: nothing is read
      for (IterVar iv : axes) {
        byVar.put(iv.var(), iv);
        if (!(iv.dom().extent() instanceof IntImm)) {
          empty = empty.or(iv.dom().extent().le(0));
        }
      }
      for (TensorRead r : op.unguardedReads()) {
        require(op, r, byVar, empty, nonNegative, out);
      }
    }
    return List.copyOf(out.values());
  }

  private static void require(
      ComputeOp op,
      TensorRead r,
      Map<Var, IterVar> axes,
      Expr none,
      Map<Var, ConstIntBound> nonNegative,
      Map<String, Requirement> out) {
    for (int d = 0; d < r.indices().size(); d++) {
      Expr dim = r.tensor().shape().get(d);
      Expr lo;
      Expr hi;
      Expr below;
      Expr past;
      try {
        Expr[] range = range(r.indices().get(d), axes, nonNegative.keySet());
        if (range == null || (dim instanceof IntImm && FreeVars.of(range[1]).isEmpty())) {
          continue; // not affine, or constant throughout (ReadBounds)
        }
        lo = Simplifier.simplify(range[0]);
        hi = Simplifier.simplify(range[1]);
        below = lo.ge(0);
        past = hi.lt(dim);
      } catch (UserError mixedDtypes) {
        continue; // an index of one width and a dim of another: not judged
      }
      String where =
          String.format(
              "compute '%s' reads %s: index %d of '%s' runs %s..%s",
              op.name(),
              r.show(),
              d,
              r.tensor().name(),
              ExprPrinter.print(lo),
              ExprPrinter.print(hi));
      add(below, none, where + ", below 0", nonNegative, out);
      add(past, none, where + ", past dim " + d + " = " + ExprPrinter.print(dim), nonNegative, out);
    }
  }

  /**
   * Adds the requirement that {@code holds} where anything is read ({@code none}: nothing is);
   * refuses one that fails at every launch that reads.
   */
  private static void add(
      Expr holds,
      Expr none,
      String what,
      Map<Var, ConstIntBound> dims,
      Map<String, Requirement> out) {
    Expr s = Simplifier.simplify(holds, dims);
    if (s instanceof IntImm i) {
      if (i.value() == 0) {
        throw new UserError(
            what
                + " at every launch; a read that may leave its tensor goes inside a select that"
                + " tests its bounds");
      }
      return;
    }
    Expr guarded = Simplifier.simplify(none.or(s), dims);
    if (!(guarded instanceof IntImm)) {
      out.putIfAbsent(ExprPrinter.print(guarded), new Requirement(guarded, what));
    }
  }

  /**
   * The least and greatest values of {@code e} over the axes' ranges, where {@code e} is a sum of
   * constants, dims and axis variables times constants, each variable once; null otherwise.
   */
  private static Expr[] range(Expr e, Map<Var, IterVar> axes, java.util.Set<Var> dims) {
    return switch (e) {
      case IntImm c -> new Expr[] {c, c};
      case Var v -> {
        IterVar iv = axes.get(v);
        if (iv == null) {
          yield dims.contains(v) ? new Expr[] {v, v} : null;
        }
        Expr min = iv.dom().min();
        yield new Expr[] {min, min.add(iv.dom().extent()).sub(1)};
      }
      case Cast c when c.dtype().isInt() -> range(c.value(), axes, dims);
      case Binary b when b.op() == BinOp.ADD || b.op() == BinOp.SUB -> {
        Expr[] x = range(b.a(), axes, dims);
        Expr[] y = range(b.b(), axes, dims);
        if (x == null || y == null || shareVars(b.a(), b.b())) {
          yield null;
        }
        yield b.op() == BinOp.ADD
            ? new Expr[] {x[0].add(y[0]), x[1].add(y[1])}
            : new Expr[] {x[0].sub(y[1]), x[1].sub(y[0])};
      }
      case Binary b
          when b.op() == BinOp.MUL && (b.a() instanceof IntImm || b.b() instanceof IntImm) -> {
        IntImm c = b.a() instanceof IntImm k ? k : (IntImm) b.b();
        Expr[] x = range(b.a() instanceof IntImm ? b.b() : b.a(), axes, dims);
        if (x == null) {
          yield null;
        }
        yield c.value() >= 0
            ? new Expr[] {x[0].mul(c), x[1].mul(c)}
            : new Expr[] {x[1].mul(c), x[0].mul(c)};
      }
      default -> null;
    };
  }

  private static boolean shareVars(Expr a, Expr b) {
    var va = FreeVars.of(a);
    for (Var v : FreeVars.of(b)) {
      if (va.contains(v)) {
        return true;
      }
    }
    return false;
  }
}
