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
