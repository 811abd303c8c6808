package dev.kernelgen.te;

import java.util.ArrayList;
import java.util.List;

/**
 * Rebuilds an expression bottom-up. Returns the same node when nothing below it changed, so
 * identity means "unchanged" and passes stay cheap. Override {@link #mutate} to rewrite nodes.
 */
public class ExprMutator {
  public Expr mutate(Expr e) {
    return mutateChildren(e);
  }

  /** Rebuilds {@code e} from its mutated children; {@code e} itself when none changed. */
  protected final Expr mutateChildren(Expr e) {
    return switch (e) {
      case IntImm i -> i;
      case FloatImm f -> f;
      case Var v -> v;
      case Binary b -> {
        Expr a = mutate(b.a());
        Expr c = mutate(b.b());
        yield a == b.a() && c == b.b() ? b : Binary.of(b.op(), a, c);
      }
      case Not n -> {
        Expr a = mutate(n.a());
        yield a == n.a() ? n : Not.of(a);
      }
      case Select s -> {
        Expr c = mutate(s.cond());
        Expr t = mutate(s.trueValue());
        Expr f = mutate(s.falseValue());
        yield c == s.cond() && t == s.trueValue() && f == s.falseValue() ? s : new Select(c, t, f);
      }
      case Cast c -> {
        Expr v = mutate(c.value());
        yield v == c.value() ? c : Cast.of(c.dtype(), v);
      }
      case Call c -> {
        List<Expr> args = mutateAll(c.args());
        yield args == c.args() ? c : new Call(c.fn(), args);
      }
      case TensorRead r -> {
        List<Expr> idx = mutateAll(r.indices());
        yield idx == r.indices() ? r : TensorRead.of(r.tensor(), idx);
      }
      case Reduce r -> {
        Expr src = mutate(r.source());
        Expr cond = mutate(r.condition());
        yield src == r.source() && cond == r.condition()
            ? r
            : new Reduce(r.combiner(), src, r.axes(), cond);
      }
      case Load l -> {
        Expr idx = mutate(l.index());
        yield idx == l.index() ? l : new Load(l.dtype(), l.buffer(), idx);
      }
    };
  }

  /** The mutated list, or {@code list} itself when no element changed. */
  public final List<Expr> mutateAll(List<Expr> list) {
    List<Expr> out = null;
    for (int k = 0; k < list.size(); k++) {
      Expr m = mutate(list.get(k));
      if (m != list.get(k) && out == null) {
        out = new ArrayList<>(list.subList(0, k));
      }
      if (out != null) {
        out.add(m);
      }
    }
    return out == null ? list : out;
  }
}
