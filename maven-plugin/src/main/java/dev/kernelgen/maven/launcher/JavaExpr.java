package dev.kernelgen.maven.launcher;

import dev.kernelgen.diag.UserError;
import dev.kernelgen.te.Binary;
import dev.kernelgen.te.Cast;
import dev.kernelgen.te.DType;
import dev.kernelgen.te.Expr;
import dev.kernelgen.te.ExprPrinter;
import dev.kernelgen.te.IntImm;
import dev.kernelgen.te.Not;
import dev.kernelgen.te.Select;
import dev.kernelgen.te.Var;
import java.util.Map;

/**
 * Prints an integer expression over the symbolic dims (a shape, a launch extent, a temporary's
 * size) as Java {@code long} arithmetic with the same floor-division semantics as the IR.
 */
final class JavaExpr {
  private JavaExpr() {}

  static String print(Expr e, Map<String, String> dims) {
    return switch (e) {
      case IntImm i -> i.dtype() == DType.BOOL ? Boolean.toString(i.value() != 0) : i.value() + "L";
      case Var v -> {
        String n = dims.get(v.name());
        if (n == null) {
          throw new UserError(
              "the launcher needs dim '" + v.name() + "', which no argument's shape gives");
        }
        yield n;
      }
      case Cast c when c.dtype().isInt() -> print(c.value(), dims);
      case Not n -> "!" + print(n.a(), dims);
      case Select s ->
          "("
              + print(s.cond(), dims)
              + " ? "
              + print(s.trueValue(), dims)
              + " : "
              + print(s.falseValue(), dims)
              + ")";
      case Binary b -> {
        String x = print(b.a(), dims);
        String y = print(b.b(), dims);
        yield switch (b.op()) {
          case ADD, SUB, MUL, EQ, NE, LT, LE, GT, GE, AND, OR ->
              "(" + x + " " + b.op().symbol() + " " + y + ")";
          case FLOOR_DIV -> "Math.floorDiv(" + x + ", " + y + ")";
          case FLOOR_MOD -> "Math.floorMod(" + x + ", " + y + ")";
          case MIN -> "Math.min(" + x + ", " + y + ")";
          case MAX -> "Math.max(" + x + ", " + y + ")";
          case DIV -> throw unsupported(e);
        };
      }
      default -> throw unsupported(e);
    };
  }

  private static UserError unsupported(Expr e) {
    return new UserError(
        "the launcher cannot compute " + ExprPrinter.print(e) + ": not integer arithmetic");
  }
}
