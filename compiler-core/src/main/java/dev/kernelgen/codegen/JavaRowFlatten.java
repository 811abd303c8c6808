package dev.kernelgen.codegen;

import dev.kernelgen.arith.Simplifier;
import dev.kernelgen.te.BinOp;
import dev.kernelgen.te.Binary;
import dev.kernelgen.te.Buffer;
import dev.kernelgen.te.DType;
import dev.kernelgen.te.Expr;
import dev.kernelgen.te.ExprMutator;
import dev.kernelgen.te.ExprVisitor;
import dev.kernelgen.te.FreeVars;
import dev.kernelgen.te.IntImm;
import dev.kernelgen.te.Load;
import dev.kernelgen.te.Select;
import dev.kernelgen.te.Var;
import dev.kernelgen.tir.Allocate;
import dev.kernelgen.tir.For;
import dev.kernelgen.tir.ForKind;
import dev.kernelgen.tir.Seq;
import dev.kernelgen.tir.Stmt;
import dev.kernelgen.tir.StmtMutator;
import dev.kernelgen.tir.StmtVisitor;
import dev.kernelgen.tir.Store;
import java.util.ArrayList;
import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Rows of sums computed as one long row, for C2: a loop over rows {@code k} whose body fills a row
 * buffer {@code R} ({@code for l < W: R[l] = sum of src[S*k + l + c] * w}, a convolution computed
 * per output row) and then reads it ({@code for l < W: out[...] = f(R[l])}) becomes
 *
 * <pre>
 *   F = new T[(H-1)*S + W]
 *   for q < (H-1)*S + W: F[q] = sum of src[S*k0 + q + c] * w      (one loop, all rows)
 *   for k: for l < W: out[...] = f(F[(k-k0)*S + l])
 * </pre>
 *
 * C2 vectorizes a loop only in its main part (16 floats an iteration on AVX-512, unrolled), the
 * rest runs in scalar pre- and post-loops: a row of 21 or 96 elements spends most of its time
 * there, one of thousands does not (measured single-threaded on the seed's 3x3 depthwise planes:
 * 21x21 7x, 96x96 4.6x faster). {@code S} is the source's row stride: the elements of {@code F}
 * between two rows (at {@code l >= W}) are computed from the source elements between the rows' and
 * never read. Every source index lies between the first and the last that the loop nest reads, so
 * within the source buffer; the values are pure arithmetic on loads (no condition, no integer
 * division), so computing the extra elements has no effect but time.
 *
 * <p>The loops may be split: each iteration of {@code k} writes only {@code R}, rewritten before it
 * is read, and the readers store nothing the writer reads.
 */
final class JavaRowFlatten {
  /** The longest flat row, in elements: a longer one stays a loop over rows. */
  static final long MAX_LENGTH = 1 << 20;

  private JavaRowFlatten() {}

  /** {@code body} with every loop nest of that form flattened. */
  static Stmt apply(Stmt body) {
    return new StmtMutator() {
      @Override
      public Stmt mutate(Stmt s) {
        Stmt m = mutateStmtChildren(s);
        Stmt flat =
            switch (m) {
              case For f -> flatten(f);
              // The row allocated around the loop over rows: the same as inside it.
              case Allocate a when a.body() instanceof For f && !(f.body() instanceof Allocate) ->
                  flatten(f.withBody(new Allocate(a.buffer(), a.size(), f.body())));
              default -> null;
            };
        return flat != null ? flat : m;
      }
    }.mutate(body);
  }

  /** The flattened form of {@code k}, or null when it is not such a loop. */
  static Stmt flatten(For k) {
    if (k.kind() == ForKind.PARALLEL
        || k.threadTag() != null
        || k.loopVar().dtype() != DType.INT32
        || !(k.extent() instanceof IntImm h)
        || h.value() < 2
        || !(k.body() instanceof Allocate a)
        || !(a.body() instanceof Seq q)
        || q.stmts().size() < 2
        || !(q.stmts().get(0) instanceof For p)) {
      return null;
    }
    Buffer row = a.buffer();
    Long stride = writerStride(p, row, k.loopVar());
    if (stride == null || !(p.extent() instanceof IntImm w)) {
      return null;
    }
    long length = (h.value() - 1) * stride + w.value();
    if (length > MAX_LENGTH) {
      return null;
    }
    Set<Buffer> read = loaded(p);
    List<For> readers = new ArrayList<>();
    for (Stmt st : q.stmts().subList(1, q.stmts().size())) {
      if (!(st instanceof For r)
          || !isZero(r.min())
          || !r.extent().equals(p.extent())
          || !readsRowAtLoopVar(r, row)
          || StmtVisitor.storedBuffers(r).stream().anyMatch(b -> b == row || read.contains(b))) {
        return null;
      }
      readers.add(r);
    }
    Buffer flat = new Buffer(row.name() + "_rows", row.dtype(), row.scope(), List.of());
    Var kv = k.loopVar();
    Var qv = new Var(p.loopVar().name(), DType.INT32);
    Map<Var, Expr> toFlat = Map.of(kv, k.min(), p.loopVar(), qv);
    Stmt writer =
        new StmtMutator() {
          @Override
          public Stmt mutate(Stmt s) {
            if (s instanceof Store st && st.buffer() == row) {
              return new Store(flat, qv, mutate(st.value()));
            }
            return mutateStmtChildren(s);
          }

          @Override
          public Expr mutate(Expr e) {
            if (e instanceof Load l) {
              return l.buffer() == row
                  ? Load.of(flat, qv)
                  : Load.of(l.buffer(), Simplifier.simplify(substitute(l.index(), toFlat)));
            }
            return mutateChildren(e);
          }
        }.mutate(p.body());
    For all =
        new For(
            qv,
            IntImm.of(DType.INT32, 0),
            IntImm.of(DType.INT32, length),
            p.kind(),
            null,
            p.pragmas(),
            writer);
    List<Stmt> reads = new ArrayList<>();
    Stmt map = readers.size() == 1 ? elementwise(readers.get(0), row, flat, kv, length) : null;
    if (map != null) {
      // The reader's arithmetic on the flat row in place, then copies of its rows.
      Store st = (Store) readers.get(0).body();
      For r = readers.get(0);
      readers.set(0, r.withBody(new Store(st.buffer(), st.index(), Load.of(row, r.loopVar()))));
    }
    for (For r : readers) {
      Expr at = Simplifier.simplify(kv.sub(k.min()).mul(stride).add(r.loopVar()));
      reads.add(
          new StmtMutator() {
            @Override
            public Expr mutate(Expr e) {
              return e instanceof Load l && l.buffer() == row
                  ? Load.of(flat, at)
                  : mutateChildren(e);
            }
          }.mutate(r));
    }
    List<Stmt> body = new ArrayList<>(List.of(all));
    if (map != null) {
      body.add(map);
    }
    Stmt dense = readers.size() == 1 ? denseCopy(k, readers.get(0), row, flat, stride) : null;
    if (dense != null) {
      body.add(dense);
      return new Allocate(flat, IntImm.of(DType.INT32, length), Seq.of(body));
    }
    body.add(k.withBody(Seq.of(reads)));
    return new Allocate(flat, IntImm.of(DType.INT32, length), Seq.of(body));
  }

  /**
   * When the one reader copies the row to a plane stored row after row ({@code out[W*k + l + c] =
   * row[l]}, {@code W} the row's length): the rows of {@code flat} compacted into a dense array
   * (one {@code System.arraycopy} a row), then the plane copied out at once, instead of one copy
   * into the output segment per row (a copy into a segment costs several nanoseconds to start, much
   * of a row of 21 floats). Null when it is not such a reader.
   */
  private static Stmt denseCopy(For k, For r, Buffer row, Buffer flat, long stride) {
    if (!(r.body() instanceof Store st)
        || !(st.value() instanceof Load ld)
        || ld.buffer() != row
        || ld.index() != r.loopVar()
        || !(r.extent() instanceof IntImm w)
        || !(k.extent() instanceof IntImm h)) {
      return null;
    }
    long[] c = coefficients(st.index(), k.loopVar(), r.loopVar());
    if (c == null || c[0] != w.value() || c[1] != 1) {
      return null;
    }
    Buffer plane = new Buffer(row.name() + "_plane", row.dtype(), row.scope(), List.of());
    Var kv = new Var(k.loopVar().name(), DType.INT32);
    Var l = new Var(r.loopVar().name(), DType.INT32);
    Expr from = Simplifier.simplify(kv.mul(stride).add(l));
    Expr to = Simplifier.simplify(kv.mul(w.value()).add(l));
    Stmt compact =
        For.serial(
            kv,
            IntImm.of(DType.INT32, 0),
            h,
            For.serial(l, IntImm.of(DType.INT32, 0), w, new Store(plane, to, Load.of(flat, from))));
    Var q = new Var(r.loopVar().name(), DType.INT32);
    Expr out =
        Simplifier.simplify(substitute(st.index(), Map.of(k.loopVar(), k.min(), r.loopVar(), q)));
    Stmt copy =
        For.serial(
            q,
            IntImm.of(DType.INT32, 0),
            IntImm.of(DType.INT32, h.value() * w.value()),
            new Store(st.buffer(), out, Load.of(plane, q)));
    return new Allocate(
        plane, IntImm.of(DType.INT32, h.value() * w.value()), Seq.of(compact, copy));
  }

  /**
   * The arithmetic of reader {@code r} applied to the whole flat row in place ({@code for q: F[q] =
   * f(F[q])}), when its body is one store of {@code f(row[l])} with {@code f} pure arithmetic on
   * invariant loads of other buffers (a scale_shift and relu after a convolution); null when it is
   * not, or when {@code f} is the element itself. C2 vectorizes the loop over one array, not a loop
   * from one array to another at offsets that differ by {@code S*k}.
   */
  private static For elementwise(For r, Buffer row, Buffer flat, Var k, long length) {
    if (!(r.body() instanceof Store st)
        || st.value() instanceof Load
        || !pure(st.value())
        || !readsOnlyInvariants(st.value(), row, st.buffer(), k, r.loopVar())) {
      return null;
    }
    Var q = new Var(r.loopVar().name(), DType.INT32);
    Expr value =
        new ExprMutator() {
          @Override
          public Expr mutate(Expr e) {
            return e instanceof Load l && l.buffer() == row ? Load.of(flat, q) : mutateChildren(e);
          }
        }.mutate(st.value());
    return new For(
        q,
        IntImm.of(DType.INT32, 0),
        IntImm.of(DType.INT32, length),
        r.kind(),
        null,
        r.pragmas(),
        new Store(flat, q, value));
  }

  /**
   * Whether {@code e} uses {@code k} and {@code l} only in loads of {@code row[l]}, and reads
   * {@code stored} nowhere.
   */
  private static boolean readsOnlyInvariants(Expr e, Buffer row, Buffer stored, Var k, Var l) {
    boolean[] ok = {true};
    new ExprVisitor() {
      @Override
      public void visit(Expr x) {
        switch (x) {
          case Load ld when ld.buffer() == row -> ok[0] &= ld.index() == l;
          case Load ld ->
              ok[0] &=
                  ld.buffer() != stored
                      && !FreeVars.uses(ld.index(), k)
                      && !FreeVars.uses(ld.index(), l);
          case Var v -> ok[0] &= v != k && v != l;
          default -> super.visit(x);
        }
      }
    }.visit(e);
    return ok[0];
  }

  /**
   * Whether {@code e} evaluates everything unconditionally and cannot throw: no condition and no
   * integer division outside the indices of loads (an index the original loop computes too).
   */
  private static boolean pure(Expr e) {
    boolean[] ok = {true};
    new ExprVisitor() {
      @Override
      public void visit(Expr x) {
        if (x instanceof Load) {
          return;
        }
        ok[0] &=
            !(x instanceof Select)
                && !(x instanceof Binary b
                    && (b.op() == BinOp.AND
                        || b.op() == BinOp.OR
                        || !b.dtype().isFloat()
                            && (b.op() == BinOp.DIV
                                || b.op() == BinOp.FLOOR_DIV
                                || b.op() == BinOp.FLOOR_MOD)));
        super.visit(x);
      }
    }.visit(e);
    return ok[0];
  }

  /**
   * The row stride {@code S} of the writer {@code p}: its body is stores of {@code row[l]} only,
   * whose values read {@code row[l]}, elements at {@code S*k + l + c} ({@code c} free of both) of
   * other buffers, and elements whose index uses neither loop variable, and use the loop variables
   * nowhere else; no condition and no integer division. Null when it is not such a loop.
   */
  private static Long writerStride(For p, Buffer row, Var k) {
    Var l = p.loopVar();
    List<Store> stores = Store.sequence(p.body());
    if (stores == null
        || l.dtype() != DType.INT32
        || !isZero(p.min())
        || p.kind() == ForKind.PARALLEL
        || p.threadTag() != null
        || !(p.extent() instanceof IntImm w)
        || w.value() <= 0) {
      return null;
    }
    long[] stride = {0};
    boolean[] ok = {true};
    ExprVisitor check =
        new ExprVisitor() {
          @Override
          public void visit(Expr e) {
            switch (e) {
              case Load ld when ld.buffer() == row -> ok[0] &= ld.index() == l;
              case Load ld -> {
                long[] c = coefficients(ld.index(), k, l);
                if (c == null || c[0] == 0 && c[1] == 0) {
                  ok[0] &= c != null;
                } else if (c[1] != 1 || c[0] <= 0 || stride[0] != 0 && stride[0] != c[0]) {
                  ok[0] = false;
                } else {
                  stride[0] = c[0];
                }
              }
              case Var v when v == k || v == l -> ok[0] = false;
              default -> super.visit(e);
            }
          }
        };
    for (Store st : stores) {
      if (st.buffer() != row || st.index() != l) {
        return null;
      }
      check.visit(st.value());
      ok[0] &= pure(st.value());
    }
    return ok[0] && stride[0] > 0 ? stride[0] : null;
  }

  /**
   * The coefficients of {@code k} and {@code l} in {@code index} when it is linear in them (the
   * rest free of both), else null.
   */
  static long[] coefficients(Expr index, Var k, Var l) {
    if (index == k) {
      return new long[] {1, 0};
    }
    if (index == l) {
      return new long[] {0, 1};
    }
    if (!FreeVars.uses(index, k) && !FreeVars.uses(index, l)) {
      return new long[] {0, 0};
    }
    if (index instanceof Binary b && (b.op() == BinOp.ADD || b.op() == BinOp.SUB)) {
      long[] x = coefficients(b.a(), k, l);
      long[] y = coefficients(b.b(), k, l);
      if (x == null || y == null) {
        return null;
      }
      long sign = b.op() == BinOp.ADD ? 1 : -1;
      return new long[] {x[0] + sign * y[0], x[1] + sign * y[1]};
    }
    if (index instanceof Binary b && b.op() == BinOp.MUL) {
      long[] x = b.b() instanceof IntImm c ? coefficients(b.a(), k, l) : null;
      long[] y = b.a() instanceof IntImm c ? coefficients(b.b(), k, l) : null;
      long factor =
          b.b() instanceof IntImm c ? c.value() : b.a() instanceof IntImm c ? c.value() : 0;
      long[] t = x != null ? x : y;
      return t == null ? null : new long[] {t[0] * factor, t[1] * factor};
    }
    return null;
  }

  /**
   * Whether every load of {@code row} in {@code r} reads {@code row[l]}, {@code l} its variable.
   */
  private static boolean readsRowAtLoopVar(For r, Buffer row) {
    boolean[] ok = {true};
    ExprVisitor v =
        new ExprVisitor() {
          @Override
          public void visit(Expr e) {
            if (e instanceof Load ld && ld.buffer() == row) {
              ok[0] &= ld.index() == r.loopVar();
              return;
            }
            super.visit(e);
          }
        };
    new StmtMutator() {
      @Override
      public Expr mutate(Expr e) {
        v.visit(e);
        return e;
      }
    }.mutate(r.body());
    return ok[0];
  }

  private static Set<Buffer> loaded(Stmt s) {
    Set<Buffer> out = Collections.newSetFromMap(new IdentityHashMap<>());
    ExprVisitor v =
        new ExprVisitor() {
          @Override
          public void visit(Expr e) {
            if (e instanceof Load ld) {
              out.add(ld.buffer());
            }
            super.visit(e);
          }
        };
    new StmtMutator() {
      @Override
      public Expr mutate(Expr e) {
        v.visit(e);
        return e;
      }
    }.mutate(s);
    return out;
  }

  private static Expr substitute(Expr e, Map<Var, Expr> map) {
    return dev.kernelgen.te.Substitute.apply(e, map);
  }

  private static boolean isZero(Expr e) {
    return e instanceof IntImm i && i.value() == 0;
  }
}
