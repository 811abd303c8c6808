package dev.kernelgen.lower;

import dev.kernelgen.arith.Simplifier;
import dev.kernelgen.te.Buffer;
import dev.kernelgen.te.IntImm;
import dev.kernelgen.te.Var;
import dev.kernelgen.tir.Accumulations;
import dev.kernelgen.tir.For;
import dev.kernelgen.tir.ForKind;
import dev.kernelgen.tir.Seq;
import dev.kernelgen.tir.Stmt;
import dev.kernelgen.tir.StmtMutator;
import dev.kernelgen.tir.Store;
import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * On C, the remainder of a short vectorized loop run as one more vector that overlaps the last
 * whole one: a loop over {@code E} columns, {@code E} not a multiple of {@value #LANES}, becomes a
 * loop over the first {@code E - E % 8} and a loop over the last 8, which recomputes and stores
 * again the {@code 8 - E % 8} columns the two share. gcc runs a remainder in narrower vectors and
 * scalars (a row of 21 at AVX-512: 16, 4 and 1; with a compare in the body, as a relu, 16 and five
 * scalars), each of which costs as much as a whole vector; overlapped it is one vector of 8 (16 and
 * 8 at AVX-512, 8 and 8 at AVX2, whole vectors of 4 at SSE). The seed's fused 3x3 depthwise over
 * [1,256,21,21], whose epilogue (scale, shift, relu) stores rows of 21: 51-58 -> 43-51 us on one
 * Zen 4 core (AVX-512), 52-57 -> 46-52 us at AVX2, the generated C side by side.
 *
 * <p>A remainder of one column stays a scalar (a row of 17 ran 3-10% slower overlapped: one store
 * for one). Recomputing a column is safe where the body's stores are idempotent: the body only
 * stores (no loops, branches or lets), each to a buffer of its own, one element per iteration (the
 * index moves by 1 along the loop), and no value it stores depends on a buffer it stores. Applies
 * to a vectorized loop over a constant range longer than {@value #LANES} whose remainder is two
 * columns or more.
 */
final class OverlapVectorTail {
  /** The tail's width: a whole vector at AVX2 (8 floats), half of one at AVX-512, two at SSE. */
  static final int LANES = 8;

  private OverlapVectorTail() {}

  static Stmt run(Stmt s) {
    return new StmtMutator() {
      @Override
      public Stmt mutate(Stmt st) {
        if (st instanceof For f && f.kind() == ForKind.VECTORIZED) {
          Stmt split = split(f);
          if (split != null) {
            return split;
          }
        }
        return mutateStmtChildren(st);
      }
    }.mutate(s);
  }

  /** {@code f} as a loop over its whole vectors and an overlapping last one, or null. */
  private static Stmt split(For f) {
    if (!(f.min() instanceof IntImm min)
        || !(f.extent() instanceof IntImm extent)
        || extent.value() <= LANES
        || extent.value() % LANES < 2
        || !idempotent(f.body(), f.loopVar())) {
      return null;
    }
    Var v = f.loopVar();
    long whole = extent.value() - extent.value() % LANES;
    Var tailVar = new Var(v.name() + "_tail", v.dtype());
    Stmt tailBody = StmtMutator.substituteVars(f.body(), Map.of(v, tailVar));
    For head =
        new For(v, min, IntImm.like(v, whole), f.kind(), f.threadTag(), f.pragmas(), f.body());
    For tail =
        new For(
            tailVar,
            IntImm.like(v, min.value() + extent.value() - LANES),
            IntImm.like(v, LANES),
            f.kind(),
            f.threadTag(),
            f.pragmas(),
            tailBody);
    return Seq.of(head, tail);
  }

  /**
   * Whether running an iteration of {@code body} twice leaves what running it once does: stores
   * only, one per buffer, each moving by one element along {@code v}, and no load of a stored
   * buffer.
   */
  private static boolean idempotent(Stmt body, Var v) {
    List<Store> stores = Store.sequence(body);
    if (stores == null) {
      return false;
    }
    Set<Buffer> stored = Collections.newSetFromMap(new IdentityHashMap<>());
    for (Store st : stores) {
      Long step = Simplifier.step(st.index(), v);
      if (!stored.add(st.buffer()) || step == null || step != 1) {
        return false;
      }
    }
    for (Store st : stores) {
      for (Buffer b : stored) {
        if (Accumulations.reads(st.value(), b) || Accumulations.reads(st.index(), b)) {
          return false;
        }
      }
    }
    return true;
  }
}
