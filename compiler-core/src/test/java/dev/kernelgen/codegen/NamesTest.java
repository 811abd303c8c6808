package dev.kernelgen.codegen;

import static org.assertj.core.api.Assertions.assertThat;

import dev.kernelgen.te.Buffer;
import dev.kernelgen.te.DType;
import dev.kernelgen.te.IntImm;
import dev.kernelgen.te.Var;
import dev.kernelgen.tir.For;
import dev.kernelgen.tir.LetStmt;
import dev.kernelgen.tir.PrimFunc;
import dev.kernelgen.tir.Store;
import java.util.List;
import org.junit.jupiter.api.Test;

class NamesTest {
  @Test
  void sanitizesIrNames() {
    assertThat(Names.sanitize("i.outer")).isEqualTo("i_outer");
    assertThat(Names.sanitize("A.shared.local")).isEqualTo("A_shared_local");
    assertThat(Names.sanitize("0x")).isEqualTo("v0x");
    assertThat(Names.sanitize("_tmp")).isEqualTo("v_tmp");
    assertThat(Names.sanitize("kg_x")).isEqualTo("vkg_x");
    assertThat(Names.sanitize("int")).isEqualTo("int_");
    assertThat(Names.sanitize("threadIdx")).isEqualTo("threadIdx_");
    assertThat(Names.sanitize("")).isEqualTo("v");
  }

  @Test
  void distinctVariablesWithOneNameGetDistinctIdentifiers() {
    Var n = new Var("float");
    Buffer a = Fixtures.param("A.x", DType.INT32, n);
    Buffer b = Fixtures.param("A_x", DType.INT32, n);
    Var i = new Var("i");
    Var i2 = new Var("i");
    Var i3 = new Var("i_1");
    var body =
        For.serial(
            i,
            IntImm.of(0),
            n,
            new LetStmt(i2, i.add(1), new LetStmt(i3, i2.add(1), new Store(a, i, Load(b, i3)))));
    String src =
        CCodegen.generate(List.of(new PrimFunc("f", List.of(a, b), List.of(n), body)), "m");
    assertThat(src)
        .contains("int64_t f(int32_t* restrict A_x, const int32_t* restrict A_x_1, int32_t float_)")
        .contains("for (int32_t i = 0; i < float_; ++i) {")
        .contains("const int32_t i_1 = i + 1;")
        .contains("const int32_t i_1_1 = i_1 + 1;")
        .contains("A_x[i] = A_x_1[i_1_1];");
  }

  private static dev.kernelgen.te.Expr Load(Buffer b, dev.kernelgen.te.Expr i) {
    return dev.kernelgen.te.Load.of(b, i);
  }
}
