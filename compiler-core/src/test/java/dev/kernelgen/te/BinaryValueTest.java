package dev.kernelgen.te;

import static dev.kernelgen.te.TE.var;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.kernelgen.diag.UserError;
import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * {@link Binary} is a value, as the records beside it: equal by operator and operands, whatever
 * instances built them, with the hash code and dtype it keeps rather than recomputes.
 */
class BinaryValueTest {
  private final Var i = var("i");
  private final Var j = var("j");

  private Expr index() {
    return i.mul(64).add(j).add(7).floordiv(3);
  }

  @Test
  void treesBuiltApartAreEqualKeysOfOneMapEntry() {
    Expr a = index();
    Expr b = index();
    assertThat(a).isNotSameAs(b).isEqualTo(b).hasSameHashCodeAs(b);
    Map<Expr, Integer> terms = new HashMap<>();
    terms.put(a, 1);
    terms.merge(b, 1, Integer::sum);
    assertThat(terms).containsExactly(Map.entry(a, 2));
    assertThat(a.toString()).isEqualTo(b.toString()).startsWith("Binary[op=FLOOR_DIV, a=Binary[");
  }

  @Test
  void anotherOperatorOrOperandIsAnotherValue() {
    assertThat(i.add(j)).isNotEqualTo(i.sub(j)).isNotEqualTo(j.add(i));
    assertThat(i.add(j)).isNotEqualTo(i.add(var("j"))); // another variable of the same name
    assertThat(i.lt(j).dtype()).isEqualTo(DType.BOOL);
    assertThat(i.add(j).dtype()).isEqualTo(i.dtype());
  }

  @Test
  void constantsOfEitherKindTakeTheOtherOperandsDtype() {
    // As a user writes them: x.gt(0.5), x.max(0.0) (a ReLU), i.ne(0), i.min(7).
    Expr x = new FloatImm(DType.FLOAT64, 2.5);
    for (Expr cmp : new Expr[] {x.eq(0.5), x.ne(0.5), x.lt(0.5), x.le(0.5), x.gt(0.5), x.ge(0.5)}) {
      assertThat(cmp.dtype()).isEqualTo(DType.BOOL);
      assertThat(((Binary) cmp).b()).isEqualTo(new FloatImm(DType.FLOAT64, 0.5));
    }
    assertThat(x.max(0.0)).isEqualTo(x.max(new FloatImm(DType.FLOAT64, 0.0)));
    assertThat(x.min(6.0).dtype()).isEqualTo(DType.FLOAT64);
    assertThat(x.gt(0)).isEqualTo(x.gt(new FloatImm(DType.FLOAT64, 0)));
    assertThat(i.ne(0)).isEqualTo(i.ne(IntImm.like(i, 0)));
    assertThat(i.min(7)).isEqualTo(i.min(IntImm.like(i, 7)));
    assertThat(i.max(7).dtype()).isEqualTo(i.dtype());
    // A fractional constant beside an integer says so, naming the expression.
    assertThatThrownBy(() -> i.gt(0.5))
        .isInstanceOf(UserError.class)
        .hasMessageContaining("a floating-point constant next to")
        .hasMessageContaining("i");
  }

  @Test
  void operandsOfTwoDtypesAreStillAUserError() {
    assertThatThrownBy(() -> new Binary(BinOp.ADD, i, new FloatImm(DType.FLOAT32, 1)))
        .isInstanceOf(UserError.class)
        .hasMessageContaining("dtype mismatch")
        // A mean written sum(...).div(n) over a dim n: the message says what to write.
        .hasMessageEndingWith("; cast the integer side: cast(FLOAT32, i)");
  }

  @Test
  void operatorsOnOperandsOfTheWrongKindNameTheOperatorAndTheDtype() {
    FloatImm x = new FloatImm(DType.FLOAT32, 2.5);
    FloatImm y = new FloatImm(DType.FLOAT32, 2);
    assertThatThrownBy(() -> new Binary(BinOp.FLOOR_MOD, x, y))
        .isInstanceOf(UserError.class)
        .hasMessageContaining("needs integer operands, got float32");
    assertThatThrownBy(() -> new Binary(BinOp.DIV, i, j))
        .isInstanceOf(UserError.class)
        .hasMessageContaining("use floordiv for integer division");
  }
}
