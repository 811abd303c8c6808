package dev.kernelgen.tir;

import dev.kernelgen.te.BinOp;
import dev.kernelgen.te.Binary;
import dev.kernelgen.te.Buffer;
import dev.kernelgen.te.Expr;
import dev.kernelgen.te.FreeVars;
import dev.kernelgen.te.Load;
import java.util.ArrayList;
import java.util.List;

/**
 * Reductions in a loop's body: updates {@code acc = acc OP value} of an element that does not move
 * with the loop, OP a sum, product, min or max (a vectorized reduce axis, see {@code
 * Stage.vectorizeReduction}). C prints them as {@code omp simd reduction} clauses; {@code
 * lower.NextRowReduction} moves them between loops.
 */
public final class Accumulations {
  private Accumulations() {}

  /** The body of {@code f} when it is one accumulation; else null. */
  public static Store of(For f) {
    return of(f, f.body());
  }

  /** {@code body} when it is an accumulation across {@code f}'s iterations; else null. */
  public static Store of(For f, Stmt body) {
    if (!(body instanceof Store st)
        || FreeVars.of(st.index()).contains(f.loopVar())
        || !(st.value() instanceof Binary b)
        || !List.of(BinOp.ADD, BinOp.MUL, BinOp.MIN, BinOp.MAX).contains(b.op())) {
      return null;
    }
    Expr value = value(st);
    return value != null && !reads(value, st.buffer()) ? st : null;
  }

  /** What {@code st}, of the form {@code acc = acc OP value}, adds in: value; else null. */
  public static Expr value(Store st) {
    if (!(st.value() instanceof Binary b)) {
      return null;
    }
    Load self = new Load(st.buffer().dtype(), st.buffer(), st.index());
    return b.a().equals(self) ? b.b() : b.b().equals(self) ? b.a() : null;
  }

  /**
   * The accumulations that end {@code f}'s body: the body itself where it is one, or the last
   * statements of a sequence, each into its own buffer that no other statement of the body reads or
   * writes, after statements that do not accumulate (a row's values beside its sum and the next
   * row's maximum); empty where the body is neither.
   */
  public static List<Store> trailing(For f) {
    if (!(f.body() instanceof Seq q)) {
      Store one = of(f);
      return one == null ? List.of() : List.of(one);
    }
    List<Stmt> ss = q.stmts();
    int k = ss.size();
    while (k > 0 && of(f, ss.get(k - 1)) != null) {
      k--;
    }
    if (k == 0 || k == ss.size()) {
      return List.of();
    }
    List<Store> accs = new ArrayList<>();
    for (Stmt s : ss.subList(k, ss.size())) {
      accs.add((Store) s);
    }
    for (Stmt s : ss) {
      for (Store acc : accs) {
        if (s != acc && touches(s, acc.buffer())) {
          return List.of();
        }
      }
    }
    return accs;
  }

  /** Whether {@code e} loads from {@code buffer}. */
  public static boolean reads(Expr e, Buffer buffer) {
    boolean[] found = {false};
    new StmtVisitor() {
      @Override
      public void visit(Expr x) {
        found[0] |= x instanceof Load l && l.buffer() == buffer;
        super.visit(x);
      }
    }.visit(e);
    return found[0];
  }

  private static boolean touches(Stmt s, Buffer b) {
    boolean[] found = {false};
    new StmtVisitor() {
      @Override
      public void visit(Stmt st) {
        found[0] |= st instanceof Store w && w.buffer() == b;
        super.visit(st);
      }

      @Override
      public void visit(Expr e) {
        found[0] |= e instanceof Load l && l.buffer() == b;
        super.visit(e);
      }
    }.visit(s);
    return found[0];
  }
}
