package dev.kernelgen.lower;

import static dev.kernelgen.te.TE.*;
import static org.assertj.core.api.Assertions.assertThat;

import dev.kernelgen.annotations.Target;
import dev.kernelgen.codegen.CCodegen;
import dev.kernelgen.schedule.Schedule;
import dev.kernelgen.schedule.Stage;
import dev.kernelgen.te.Buffer;
import dev.kernelgen.te.Expr;
import dev.kernelgen.te.IntImm;
import dev.kernelgen.te.Load;
import dev.kernelgen.te.MemoryScope;
import dev.kernelgen.te.Tensor;
import dev.kernelgen.te.Var;
import dev.kernelgen.testing.Check;
import dev.kernelgen.tir.For;
import dev.kernelgen.tir.ForKind;
import dev.kernelgen.tir.Seq;
import dev.kernelgen.tir.Stmt;
import dev.kernelgen.tir.Store;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** {@link OverlapVectorTail}: a short vector loop's remainder as one overlapping vector of 8. */
class OverlapVectorTailTest {
  private final Var l = new Var("l", INT32);

  /** A relu after a scale over rows of {@code width}, the rows vectorized: the seed's epilogue. */
  private static Schedule reluRows(int width) {
    Tensor x = placeholder("X", FLOAT32, 5, width);
    Tensor y = compute("Y", shape(5, width), (i, j) -> maximum(x.at(i, j).mul(2.0).add(1.0), 0.0));
    Schedule s = Schedule.create(y);
    Stage sy = s.stage(y);
    sy.vectorize(sy.axis(1));
    return s;
  }

  @ParameterizedTest(name = "a row of {0}: whole vectors over [0, {1}), then [{2}, {0})")
  @CsvSource({"21, 16, 13", "30, 24, 22", "14, 8, 6"})
  void aRaggedRowEndsInOneVectorThatOverlapsTheLastWholeOne(int width, int whole, int tailStart) {
    Schedule s = reluRows(width);
    String c = CCodegen.generate(List.of(Lower.lower(s, "f", Target.C)), "m");
    assertThat(c)
        .contains("j < " + whole + ";")
        .contains("j_tail = " + tailStart + "; j_tail < " + width + ";")
        .doesNotContain("j < " + width + ";");
    // Outputs start as NaN: a column that no loop stores fails the comparison.
    Check.check(s, Map.of());
  }

  @ParameterizedTest(name = "a row of {0} stays one loop")
  @CsvSource({"17", "16", "7"})
  void aRemainderOfOneColumnOrNoneStaysAsItIs(int width) {
    Schedule s = reluRows(width);
    String c = CCodegen.generate(List.of(Lower.lower(s, "f", Target.C)), "m");
    assertThat(c).contains("j < " + width + ";").doesNotContain("_tail");
    Check.check(s, Map.of());
  }

  /** {@code Acc[l] = Acc[l] + In[l]}: storing it twice adds twice. */
  @org.junit.jupiter.api.Test
  void aBodyThatReadsWhatItStoresOrStoresOneBufferTwiceIsNotRecomputed() {
    Buffer in = new Buffer("In", FLOAT32, MemoryScope.GLOBAL, List.of(IntImm.of(64)));
    Buffer acc = new Buffer("Acc", FLOAT32, MemoryScope.GLOBAL, List.of(IntImm.of(64)));
    Expr x = new Load(FLOAT32, in, l);
    Stmt accumulate = loop(new Store(acc, l, new Load(FLOAT32, acc, l).add(x)));
    assertThat(OverlapVectorTail.run(accumulate)).isSameAs(accumulate);
    // Out[l] = In[l]; Out[l + 1] = 2 In[l]: the next iteration's first store overwrites the second.
    Stmt twice = loop(Seq.of(new Store(acc, l, x), new Store(acc, l.add(1), x.mul(2.0))));
    assertThat(OverlapVectorTail.run(twice)).isSameAs(twice);
    // A store that does not move along the loop (every iteration writes one element).
    Stmt same = loop(new Store(acc, IntImm.of(0), x));
    assertThat(OverlapVectorTail.run(same)).isSameAs(same);
    // A serial loop is left to the compiler.
    Stmt serial = For.serial(l, IntImm.of(0), IntImm.of(21), new Store(acc, l, x));
    assertThat(OverlapVectorTail.run(serial)).isSameAs(serial);
    // The idempotent copy splits.
    Stmt copy = loop(new Store(acc, l, x));
    assertThat(OverlapVectorTail.run(copy)).isInstanceOf(Seq.class);
  }

  private Stmt loop(Stmt body) {
    return new For(l, IntImm.of(0), IntImm.of(21), ForKind.VECTORIZED, null, List.of(), body);
  }
}
