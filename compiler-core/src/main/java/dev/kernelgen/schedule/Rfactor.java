package dev.kernelgen.schedule;

import dev.kernelgen.arith.Simplifier;
import dev.kernelgen.diag.UserError;
import dev.kernelgen.te.ComputeOp;
import dev.kernelgen.te.Expr;
import dev.kernelgen.te.IntImm;
import dev.kernelgen.te.IterVar;
import dev.kernelgen.te.Range;
import dev.kernelgen.te.Reduce;
import dev.kernelgen.te.Substitute;
import dev.kernelgen.te.TE;
import dev.kernelgen.te.Tensor;
import dev.kernelgen.te.TensorRead;
import dev.kernelgen.te.Var;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The {@code rfactor} primitives of {@link Schedule}: a reduction factored into partial results.
 */
final class Rfactor {
  private Rfactor() {}

  /**
   * {@link Schedule#rfactor} ({@code parts} false) or {@link Schedule#rfactorParts} of {@code t}.
   */
  static Tensor apply(Schedule sch, Tensor t, IterVar k, int factor, boolean parts) {
    String primitive = parts ? "rfactor_parts" : "rfactor";
    Stage s = sch.stage(t);
    UserError.check(
        !s.isPlaceholder() && s.body() instanceof Reduce,
        "%s of '%s': it is not a reduction",
        primitive,
        t.name());
    Reduce r = (Reduce) s.body();
    UserError.check(
        r.axes().contains(k),
        "%s of '%s' over '%s', which is not one of its reduce axes %s",
        primitive,
        t.name(),
        k.name(),
        r.axes());
    UserError.check(
        factor >= 2,
        "%s of '%s' by %d: the factor must be at least 2",
        primitive,
        t.name(),
        factor);
    Schedule.checkUntransformed(s, primitive);
    ComputeOp op = (ComputeOp) t.op();
    Expr extent = k.dom().extent();
    // Fresh copies of t's axes, then the partial results' axis.
    IterVar ki =
        new IterVar(
            new Var(k.name() + (parts ? ".part" : ".inner"), k.var().dtype()),
            Range.of(0, factor),
            IterVar.Kind.DATA_PAR);
    Map<Var, Expr> fresh = new HashMap<>();
    List<IterVar> axis = Schedule.freshAxes(op, fresh);
    axis.add(ki);
    Expr steps = Simplifier.simplify(extent.add(factor - 1).floordiv(factor));
    IterVar ko = TE.reduceAxis(steps, k.name() + (parts ? ".chunk" : ".outer"));
    // inner: the offset in k; ragged when the factor does not divide the extent.
    Expr inner = parts ? ki.var().mul(steps).add(ko.var()) : ko.var().mul(factor).add(ki.var());
    fresh.put(k.var(), Simplifier.simplify(k.dom().min().add(inner)));
    List<IterVar> reduceAxes = new ArrayList<>();
    for (IterVar a : r.axes()) {
      reduceAxes.add(a == k ? ko : a);
    }
    Expr condition = Substitute.apply(r.condition(), fresh);
    boolean ragged = !(extent instanceof IntImm e && e.value() % factor == 0);
    if (ragged) {
      condition = condition.and(inner.lt(extent));
    }
    condition = Simplifier.simplify(condition);
    String name = sch.uniqueName(t.name() + ".rf");
    Tensor rf =
        new ComputeOp(
                name,
                axis,
                new Reduce(
                    r.combiner(), Substitute.apply(r.source(), fresh), reduceAxes, condition),
                op.tag())
            .output();
    sch.insertBefore(s, rf);
    IterVar kr = TE.reduceAxis(factor, k.name() + ".rf");
    List<Expr> at = new ArrayList<>();
    op.axis().forEach(iv -> at.add(iv.var()));
    at.add(kr.var());
    s.setBody(new Reduce(r.combiner(), TensorRead.of(rf, at), List.of(kr), TE.expr(true)));
    s.replaceReduceAxes(List.of(kr));
    sch.trace().record(s, primitive, k.name(), Integer.toString(factor));
    return rf;
  }
}
