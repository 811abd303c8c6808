package dev.kernelgen.lower;

import static dev.kernelgen.te.DType.FLOAT32;
import static dev.kernelgen.te.DType.INT32;
import static org.assertj.core.api.Assertions.assertThat;

import dev.kernelgen.eval.IRInterpreter;
import dev.kernelgen.eval.NDArray;
import dev.kernelgen.te.Buffer;
import dev.kernelgen.te.Cast;
import dev.kernelgen.te.Expr;
import dev.kernelgen.te.IntImm;
import dev.kernelgen.te.Load;
import dev.kernelgen.te.MemoryScope;
import dev.kernelgen.te.Var;
import dev.kernelgen.tir.Allocate;
import dev.kernelgen.tir.For;
import dev.kernelgen.tir.ForKind;
import dev.kernelgen.tir.IRPrinter;
import dev.kernelgen.tir.PrimFunc;
import dev.kernelgen.tir.Seq;
import dev.kernelgen.tir.Stmt;
import dev.kernelgen.tir.Store;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * Rows of {@code W} columns stored at a pitch {@code P > W} run as one vectorized loop over the
 * {@code (H - 1) * P + W} positions, only where the columns past the width are written to a buffer
 * of the kernel's own that nothing reads there; the result equals the loops by rows on the IR
 * interpreter.
 */
class CoalescePitchedRowsTest {
  private static final int H = 5;
  private static final int W = 6;
  private static final int P = 9;

  private final Buffer in = global("In", (H + 1) * P + W);
  private final Buffer out = global("Out", H * W);
  private final Buffer sum = new Buffer("Sum", FLOAT32, MemoryScope.LOCAL, List.of());

  private static Buffer global(String name, long size) {
    return new Buffer(name, FLOAT32, MemoryScope.GLOBAL, List.of(IntImm.of(size)));
  }

  /** rows x columns, the row loop serial and the column loop vectorized. */
  private static Stmt rows(int columns, RowBody body) {
    Var k = new Var("k", INT32);
    Var l = new Var("l", INT32);
    For inner =
        new For(
            l,
            IntImm.of(0),
            IntImm.of(columns),
            ForKind.VECTORIZED,
            null,
            List.of(),
            body.at(k, l));
    return For.serial(k, IntImm.of(0), IntImm.of(H), inner);
  }

  private interface RowBody {
    Stmt at(Var k, Var l);
  }

  /**
   * Sum[k, l] = In[k, l] + 2 In[k + 1, l + 2] (a window at the input's pitch), then Out[k, l] =
   * Sum[k, l + offset] over {@code readColumns} columns.
   */
  private Stmt program(Buffer target, int offset, int readColumns, boolean valueOfColumn) {
    Stmt produce =
        rows(
            W,
            (k, l) -> {
              Expr at = k.mul(P).add(l);
              Expr v = Load.of(in, at).add(Load.of(in, at.add(P + 2)).mul(2));
              if (valueOfColumn) {
                v = v.add(Cast.of(FLOAT32, l));
              }
              return new Store(target, at, v);
            });
    Stmt consume =
        rows(
            readColumns,
            (k, l) ->
                new Store(out, k.mul(W).add(l), Load.of(target, k.mul(P).add(l).add(offset))));
    Stmt body = Seq.of(produce, consume);
    return target == sum ? new Allocate(sum, IntImm.of(H * P), body) : body;
  }

  private NDArray run(Stmt body, Buffer... extra) {
    NDArray x = NDArray.random(FLOAT32, 7, (H + 1) * P + W);
    NDArray y = NDArray.zeros(FLOAT32, H * W);
    List<Buffer> params = new java.util.ArrayList<>(List.of(in, out));
    List<NDArray> args = new java.util.ArrayList<>(List.of(x, y));
    for (Buffer b : extra) {
      params.add(b);
      args.add(NDArray.zeros(FLOAT32, H * P));
    }
    IRInterpreter.run(new PrimFunc("k", params, List.of(), body), args, Map.of());
    return y;
  }

  @Test
  void rowsStoredAtTheirReadersPitchRunAsOneVectorizedLoop() {
    Stmt before = program(sum, 0, W, false);
    Stmt after = CoalescePitchedRows.run(before);
    String ir = IRPrinter.print(after);
    assertThat(ir).containsOnlyOnce("_pitched in [0, " + ((H - 1) * P + W) + ")");
    // The reader's rows are stored at the output's own pitch: left by rows.
    assertThat(ir).contains("Out[((k * " + W + ") + l)]");
    NDArray expected = run(before);
    NDArray got = run(after);
    for (int i = 0; i < H * W; i++) {
      assertThat(got.getDouble(i)).as("Out[%d]", i).isEqualTo(expected.getDouble(i));
    }
    // A reader that stays within the columns (1 to W - 1 of each row) keeps the coalescing.
    Stmt shifted = program(sum, 1, W - 1, false);
    assertThat(IRPrinter.print(CoalescePitchedRows.run(shifted))).contains("_pitched");
  }

  @Test
  void columnsPastTheWidthAreWrittenOnlyWhereNothingReadsThem() {
    // A reader of the column past the width: it would read what the coalesced loop wrote there.
    Stmt pastWidth = program(sum, 1, W, false);
    assertThat(CoalescePitchedRows.run(pastWidth)).isSameAs(pastWidth);
    // A buffer of the caller's: the columns between rows may be someone else's data.
    Buffer caller = global("Caller", H * P);
    Stmt global = program(caller, 0, W, false);
    assertThat(CoalescePitchedRows.run(global)).isSameAs(global);
    // A value computed from the column itself.
    Stmt column = program(sum, 0, W, true);
    assertThat(CoalescePitchedRows.run(column)).isSameAs(column);
  }
}
