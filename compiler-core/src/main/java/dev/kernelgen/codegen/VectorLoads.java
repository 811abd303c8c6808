package dev.kernelgen.codegen;

import dev.kernelgen.te.BinOp;
import dev.kernelgen.te.Binary;
import dev.kernelgen.te.Cast;
import dev.kernelgen.te.DType;
import dev.kernelgen.te.Expr;
import dev.kernelgen.te.IntImm;
import dev.kernelgen.te.Load;
import dev.kernelgen.tir.PrimFunc;
import dev.kernelgen.tir.Stmt;
import dev.kernelgen.tir.Store;
import java.util.List;

/**
 * Groups of {@link #WIDTH} statements that copy consecutive float32 elements of a kernel parameter
 * ({@code x[i] = p[b + 4c]; y[j] = p[b + 4c + 1]; ...}, {@code b} a multiple of 4): the CUDA
 * printer reads them with one 128-bit load (the buffers are 16-byte aligned). nvcc merges such
 * loads itself where it sees them outside loops, but not in a double-buffered reduction loop, whose
 * staging loads then ran as 4 scalar loads each (2048^3 matmul on the H200: 538 -> 416 us with the
 * group read as one).
 */
final class VectorLoads {
  private VectorLoads() {}

  static final int WIDTH = 4;

  /** An index as a base and a constant offset. */
  private record Part(Expr base, long offset) {
    static Part of(Expr index) {
      if (index instanceof Binary b && b.op() == BinOp.ADD && b.b() instanceof IntImm c) {
        return new Part(b.a(), c.value());
      }
      return new Part(index, 0);
    }
  }

  /** Whether {@code stmts} from {@code i} start such a group in {@code f}. */
  static boolean groupAt(List<Stmt> stmts, int i, PrimFunc f) {
    if (i + WIDTH > stmts.size()) {
      return false;
    }
    Load first = load(stmts.get(i), f);
    if (first == null || CLikeExprPrinter.readsMemory(first.index())) {
      return false; // a gather: its index is checked element by element (CheckedGather)
    }
    Part p = Part.of(first.index());
    if (p.offset() % WIDTH != 0 || !divisible(p.base(), WIDTH)) {
      return false;
    }
    for (int j = 1; j < WIDTH; j++) {
      Load l = load(stmts.get(i + j), f);
      if (l == null || l.buffer() != first.buffer()) {
        return false;
      }
      Part q = Part.of(l.index());
      if (!q.base().equals(p.base()) || q.offset() != p.offset() + j) {
        return false;
      }
    }
    return true;
  }

  /** The load a statement copies: a float32 element of a parameter stored elsewhere; else null. */
  private static Load load(Stmt s, PrimFunc f) {
    if (s instanceof Store st
        && st.value() instanceof Load l
        && l.dtype() == DType.FLOAT32
        && st.buffer() != l.buffer()
        && f.params().stream().anyMatch(b -> b == l.buffer())) {
      return l;
    }
    return null;
  }

  /** Whether {@code e} is a multiple of {@code d} for every value of its variables. */
  static boolean divisible(Expr e, long d) {
    return switch (e) {
      case IntImm c -> c.value() % d == 0;
      case Cast c -> c.dtype().isInt() && divisible(c.value(), d);
      case Binary b when b.op() == BinOp.ADD || b.op() == BinOp.SUB ->
          divisible(b.a(), d) && divisible(b.b(), d);
      case Binary b when b.op() == BinOp.MUL -> divisible(b.a(), d) || divisible(b.b(), d);
      default -> false;
    };
  }
}
