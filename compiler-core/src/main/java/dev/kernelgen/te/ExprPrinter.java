package dev.kernelgen.te;

import java.util.stream.Collectors;

/** Prints expressions in one stable syntax, used by the IR printer and in error messages. */
public final class ExprPrinter {
  private ExprPrinter() {}

  public static String print(Expr e) {
    return switch (e) {
      case IntImm i ->
          switch (i.dtype()) {
            case BOOL -> i.value() != 0 ? "true" : "false";
            case INT64 -> i.value() + "L";
            default -> Long.toString(i.value());
          };
      case FloatImm f -> f.dtype() == DType.FLOAT32 ? f.value() + "f" : Double.toString(f.value());
      case Var v -> v.name();
      case Binary b ->
          b.op().isFunctionLike()
              ? b.op().symbol() + "(" + print(b.a()) + ", " + print(b.b()) + ")"
              : "(" + print(b.a()) + " " + b.op().symbol() + " " + print(b.b()) + ")";
      case Not n -> "!" + print(n.a());
      case Select s ->
          "select("
              + print(s.cond())
              + ", "
              + print(s.trueValue())
              + ", "
              + print(s.falseValue())
              + ")";
      case Cast c -> c.dtype() + "(" + print(c.value()) + ")";
      case Call c ->
          c.fn().name().toLowerCase()
              + c.args().stream()
                  .map(ExprPrinter::print)
                  .collect(Collectors.joining(", ", "(", ")"));
      case TensorRead r ->
          r.tensor().name()
              + r.indices().stream()
                  .map(ExprPrinter::print)
                  .collect(Collectors.joining(", ", "[", "]"));
      case Reduce r ->
          r.combiner().name()
              + "("
              + print(r.source())
              + ", axis="
              + r.axes().stream().map(IterVar::name).collect(Collectors.joining(", ", "[", "]"))
              + (r.condition() instanceof IntImm c && c.value() == 1
                  ? ""
                  : ", where=" + print(r.condition()))
              + ")";
      case Load l -> l.buffer().name() + "[" + print(l.index()) + "]";
    };
  }
}
