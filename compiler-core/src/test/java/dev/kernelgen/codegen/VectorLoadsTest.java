package dev.kernelgen.codegen;

import static org.assertj.core.api.Assertions.assertThat;

import dev.kernelgen.te.Buffer;
import dev.kernelgen.te.DType;
import dev.kernelgen.te.Expr;
import dev.kernelgen.te.IntImm;
import dev.kernelgen.te.Load;
import dev.kernelgen.te.MemoryScope;
import dev.kernelgen.te.Var;
import dev.kernelgen.tir.PrimFunc;
import dev.kernelgen.tir.Seq;
import dev.kernelgen.tir.Stmt;
import dev.kernelgen.tir.Store;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Groups of 4 consecutive float32 loads of a parameter, printed by CUDA as one 128-bit load. */
class VectorLoadsTest {
  private final Var t = new Var("t");
  private final Buffer a = new Buffer("a", DType.FLOAT32, MemoryScope.GLOBAL, List.of());
  private final Buffer out = new Buffer("out", DType.FLOAT32, MemoryScope.GLOBAL, List.of());

  /** out[t * 4 + j * 33] = a[base + first + j] for j in 0..3 (a transposing copy). */
  private PrimFunc copy(Expr base, long first) {
    List<Stmt> stores = new ArrayList<>();
    for (int j = 0; j < 4; j++) {
      Expr index = base.add(IntImm.of(first + j));
      stores.add(new Store(out, t.mul(4).add(j * 33), Load.of(a, index)));
    }
    return new PrimFunc("k", List.of(a, out), List.of(t), Seq.of(stores));
  }

  private static List<Stmt> stmts(PrimFunc f) {
    return ((Seq) f.body()).stmts();
  }

  @Test
  void aGroupFromAMultipleOfFourIsOneLoad() {
    PrimFunc f = copy(t.mul(8), 4);
    assertThat(VectorLoads.groupAt(stmts(f), 0, f)).isTrue();
    assertThat(VectorLoads.groupAt(stmts(f), 1, f)).as("not from its first element").isFalse();
  }

  @Test
  void aGroupNotKnownToStartOnAMultipleOfFourIsNot() {
    PrimFunc odd = copy(t.mul(8), 2); // starts at 8t + 2
    assertThat(VectorLoads.groupAt(stmts(odd), 0, odd)).isFalse();
    PrimFunc unknown = copy(t.mul(3), 0); // 3t: a multiple of 4 for some t only
    assertThat(VectorLoads.groupAt(stmts(unknown), 0, unknown)).isFalse();
    PrimFunc local =
        new PrimFunc("k", List.of(out), List.of(t), copy(t.mul(8), 0).body()); // a: no parameter
    assertThat(VectorLoads.groupAt(stmts(local), 0, local)).isFalse();
  }

  @Test
  void divisibility() {
    assertThat(VectorLoads.divisible(t.mul(8).add(t.mul(4)), 4)).isTrue();
    assertThat(VectorLoads.divisible(t.floormod(IntImm.of(2)).mul(4).sub(IntImm.of(12)), 4))
        .isTrue();
    assertThat(VectorLoads.divisible(t.mul(2), 4)).isFalse();
    assertThat(VectorLoads.divisible(t.floordiv(IntImm.of(4)), 4)).isFalse();
  }

  @Test
  void cudaPrintsTheGroupAsOneFloat4Load() {
    String cuda = CudaCodegen.generate(List.of(copy(t.mul(8), 4)), "m");
    assertThat(cuda)
        .contains("const float4 kg_v = *(const float4*)&a[(t * 8) + 4];")
        .contains("= kg_v.x;")
        .contains("= kg_v.w;");
    assertThat(CudaCodegen.generate(List.of(copy(t.mul(8), 2)), "m")).doesNotContain("float4");
  }
}
