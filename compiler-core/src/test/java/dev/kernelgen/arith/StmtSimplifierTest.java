package dev.kernelgen.arith;

import static org.assertj.core.api.Assertions.assertThat;

import dev.kernelgen.te.Buffer;
import dev.kernelgen.te.DType;
import dev.kernelgen.te.Expr;
import dev.kernelgen.te.FloatImm;
import dev.kernelgen.te.IntImm;
import dev.kernelgen.te.Load;
import dev.kernelgen.te.MemoryScope;
import dev.kernelgen.te.Var;
import dev.kernelgen.tir.Evaluate;
import dev.kernelgen.tir.For;
import dev.kernelgen.tir.ForKind;
import dev.kernelgen.tir.IfThenElse;
import dev.kernelgen.tir.LetStmt;
import dev.kernelgen.tir.Seq;
import dev.kernelgen.tir.Stmt;
import dev.kernelgen.tir.Store;
import java.util.List;
import org.junit.jupiter.api.Test;

class StmtSimplifierTest {
  private final Buffer a = new Buffer("A", DType.FLOAT32, MemoryScope.GLOBAL, List.of());
  private final Buffer out = new Buffer("B", DType.FLOAT32, MemoryScope.GLOBAL, List.of());
  private final Var io = new Var("i.outer");
  private final Var ii = new Var("i.inner");
  private final Var n = new Var("n");

  private static Expr c(long v) {
    return IntImm.of(v);
  }

  private Stmt copy(Expr index) {
    return new Store(out, index, Load.of(a, index));
  }

  /** Compares printed IR, showing input, output and expected on failure. */
  private static void check(Stmt input, String expected) {
    Stmt result = Simplifier.simplify(input);
    assertThat(result.show())
        .withFailMessage(
            "simplify%n--- input:%n%s--- output:%n%s--- expected:%n%s",
            input.show(), result.show(), expected)
        .isEqualTo(expected);
  }

  @Test
  void dropsGuardProvedByLoopBounds() {
    Expr i = io.mul(8).add(ii);
    Stmt s =
        For.serial(
            io,
            c(0),
            c(4),
            For.serial(ii, c(0), c(8), IfThenElse.of(i.lt(32), copy(i.add(1).sub(1)))));
    check(
        s,
        """
        for i.outer in [0, 4) {
          for i.inner in [0, 8) {
            B[((i.outer * 8) + i.inner)] = A[((i.outer * 8) + i.inner)]
          }
        }
        """);
  }

  @Test
  void keepsGuardThatCanFail() {
    Expr i = io.mul(8).add(ii);
    Stmt s =
        For.serial(
            io,
            c(0),
            n.add(7).floordiv(8),
            For.serial(ii, c(0), c(8), IfThenElse.of(i.lt(n), copy(i))));
    assertThat(Simplifier.simplify(s)).isSameAs(s);
  }

  @Test
  void resolvesConstantConditions() {
    Stmt s = new IfThenElse(c(3).lt(c(2)), copy(c(0)), copy(c(1)));
    check(s, "B[1] = A[1]\n");
    check(IfThenElse.of(c(3).lt(c(2)), copy(c(0))), "0\n");
    check(Seq.of(IfThenElse.of(c(3).lt(c(2)), copy(c(0))), copy(c(2))), "B[2] = A[2]\n");
  }

  @Test
  void usesGuardToNarrowBoundsInside() {
    Var i = new Var("i");
    // Inside "i < 8" the index i is in [0, 7], so floordiv(i, 8) is 0.
    Stmt s =
        For.serial(
            i, c(0), n, new IfThenElse(i.lt(8), copy(i.floordiv(8).add(i)), copy(i.floordiv(8))));
    check(
        s,
        """
        for i in [0, n) {
          if (i < 8) {
            B[i] = A[i]
          } else {
            B[floordiv(i, 8)] = A[floordiv(i, 8)]
          }
        }
        """);
  }

  @Test
  void replacesSingleIterationLoops() {
    Var i = new Var("i");
    Var j = new Var("j");
    Stmt s = For.serial(i, c(0), c(1), For.serial(j, c(0), c(4), copy(i.mul(4).add(j))));
    check(
        s,
        """
        for j in [0, 4) {
          B[j] = A[j]
        }
        """);
    // A non-trivial min becomes a let.
    Stmt t = For.serial(i, n.mul(2), c(1), copy(i));
    check(t, "let i = (n * 2)\nB[i] = A[i]\n");
    // Thread loops stay: they are the launch geometry.
    Stmt thread =
        new For(i, c(0), c(1), ForKind.THREAD_BINDING, "threadIdx.x", List.of(), copy(i.add(0)));
    check(
        thread,
        """
        launch threadIdx.x i in [0, 1) {
          B[i] = A[i]
        }
        """);
    Stmt empty = For.serial(i, c(0), c(0), copy(i));
    check(empty, "0\n");
  }

  @Test
  void tracksLetBounds() {
    Var i = new Var("i");
    Var t = new Var("t");
    Stmt s =
        For.serial(
            i,
            c(0),
            c(16),
            new LetStmt(t, i.floormod(4), IfThenElse.of(t.lt(4), copy(t.add(i).sub(i)))));
    check(
        s,
        """
        for i in [0, 16) {
          let t = floormod(i, 4)
          B[t] = A[t]
        }
        """);
  }

  @Test
  void dropsNoOpsFromSequences() {
    Stmt s = Seq.of(Evaluate.nop(), copy(c(1)), new Evaluate(c(2).add(c(3))), copy(c(2)));
    check(s, "B[1] = A[1]\nB[2] = A[2]\n");
    assertThat(Simplifier.simplify(Seq.of(Evaluate.nop(), Evaluate.nop())))
        .isEqualTo(Evaluate.nop());
  }

  /**
   * {@code B[i] = B[i] + 0}, a reduction's step where a select gave its identity (a window's
   * padding at a border), stores what is there: dropped. Adding zero to another element, or a
   * nonzero, stays.
   */
  @Test
  void dropsAStepThatAddsZeroToItself() {
    Stmt s =
        Seq.of(
            new Store(out, c(0), FloatImm.f32(0).add(Load.of(out, c(0)))),
            new Store(out, c(1), Load.of(out, c(1).add(c(0))).add(FloatImm.f32(0))),
            new Store(out, c(2), Load.of(out, c(3)).add(FloatImm.f32(0))),
            new Store(out, c(4), Load.of(a, c(4)).add(FloatImm.f32(0))),
            new Store(out, c(5), Load.of(out, c(5)).add(FloatImm.f32(2))));
    check(s, "B[2] = (B[3] + 0.0f)\nB[4] = (A[4] + 0.0f)\nB[5] = (B[5] + 2.0f)\n");
  }

  @Test
  void returnsSameNodeWhenUnchanged() {
    Var i = new Var("i");
    Stmt s =
        For.serial(
            i, c(0), n, Seq.of(copy(i), new Store(out, i, Load.of(a, i).add(FloatImm.f32(1)))));
    assertThat(Simplifier.simplify(s)).isSameAs(s);
  }
}
