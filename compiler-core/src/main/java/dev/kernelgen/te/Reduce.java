package dev.kernelgen.te;

import dev.kernelgen.diag.UserError;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * A reduction of {@code source} over the reduce axes with a commutative combiner, counting only the
 * points where {@code condition} holds.
 */
public record Reduce(Reducer combiner, Expr source, List<IterVar> axes, Expr condition)
    implements Expr {
  public Reduce {
    axes = List.copyOf(axes);
    if (axes.isEmpty()) {
      throw new UserError(
          String.format("%s reduction without reduce axes: %s", combiner.name(), source.show()));
    }
    UserError.check(
        source.dtype() == combiner.x().dtype(),
        "%s reduction over a %s value with a %s combiner",
        combiner.name(),
        source.dtype(),
        combiner.x().dtype());
    if (!condition.dtype().isBool()) {
      throw new UserError("reduction condition must be bool: " + condition.show());
    }
    Set<Var> used = new HashSet<>(FreeVars.of(source));
    used.addAll(FreeVars.of(condition));
    for (IterVar iv : axes) {
      UserError.check(
          iv.isReduce(),
          "%s reduction over axis '%s', which is not a reduce axis (make it with reduceAxis)",
          combiner.name(),
          iv.name());
      if (!used.contains(iv.var())) {
        throw new UserError(
            String.format(
                "reduce axis '%s' is not used by its %s reduction: %s",
                iv.name(), combiner.name(), source.show()));
      }
    }
  }

  @Override
  public DType dtype() {
    return source.dtype();
  }
}
