package dev.kernelgen.lower;

import dev.kernelgen.arith.ConstIntBound;
import dev.kernelgen.arith.Simplifier;
import dev.kernelgen.diag.UserError;
import dev.kernelgen.te.BinOp;
import dev.kernelgen.te.Binary;
import dev.kernelgen.te.Buffer;
import dev.kernelgen.te.Cast;
import dev.kernelgen.te.DType;
import dev.kernelgen.te.Expr;
import dev.kernelgen.te.IntImm;
import dev.kernelgen.te.Load;
import dev.kernelgen.te.MemoryScope;
import dev.kernelgen.te.Range;
import dev.kernelgen.te.Select;
import dev.kernelgen.te.Tensor;
import dev.kernelgen.te.TensorRead;
import dev.kernelgen.te.Var;
import dev.kernelgen.tir.Allocate;
import dev.kernelgen.tir.For;
import dev.kernelgen.tir.LetStmt;
import dev.kernelgen.tir.ProducerRealize;
import dev.kernelgen.tir.ProducerStore;
import dev.kernelgen.tir.Stmt;
import dev.kernelgen.tir.StmtMutator;
import dev.kernelgen.tir.Store;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Turns multi-dimensional tensors into flat buffers: a realized region becomes an {@link Allocate}
 * of its (constant, where bounds allow) size, and every access an index {@code sum((i_d - min_d) *
 * stride_d)}, row-major unless the schedule ordered the stage's storage ({@code reorder_storage}:
 * the strides follow that order), padded a dimension's stride ({@code storage_align}: the buffer
 * grows by the padding) or stored a dimension as phases ({@code storage_deinterleave}: element
 * {@code i} at {@code floormod(i, f) * phaseStride + floordiv(i, f) * stride}). Parameters are
 * indexed by their shapes. Indices are 32-bit when the buffer is known to hold fewer than 2^31
 * elements (a constant size, or a symbolic one in an {@link IndexWidth#NARROW} function, whose
 * launcher checks it), else 64-bit: then every index is widened at its leaves ({@link #widen}), so
 * that no 32-bit sum or product before the cast wraps.
 */
final class StorageFlatten extends StmtMutator {
  /**
   * A buffer's flat layout: per dimension its min and stride, and for a dimension stored as phases
   * ({@code storage_deinterleave}) its {@link Phases} (its stride is then the one between positions
   * within a phase).
   */
  private record Layout(
      Buffer buffer,
      List<Expr> mins,
      List<Expr> strides,
      DType indexType,
      Expr size,
      Map<Integer, Phases> phases) {}

  /** A dimension stored as {@code factor} phases, {@code between} elements apart. */
  private record Phases(int factor, Expr between) {}

  private final Map<Tensor, Layout> layouts = new HashMap<>();
  private final Map<Var, ConstIntBound> loopBounds = new HashMap<>();
  private final Map<Tensor, StorageLayout> storageLayouts;
  private final IndexWidth width;

  private StorageFlatten(
      Map<Tensor, Buffer> params, Map<Tensor, StorageLayout> storageLayouts, IndexWidth width) {
    this.storageLayouts = storageLayouts;
    this.width = width;
    for (var e : params.entrySet()) {
      List<Expr> shape = e.getKey().shape();
      List<Expr> mins = new ArrayList<>();
      for (Expr ignored : shape) {
        mins.add(IntImm.of(0));
      }
      layouts.put(e.getKey(), layout(e.getValue(), mins, shape, null));
    }
  }

  static Stmt run(
      Stmt body,
      Map<Tensor, Buffer> params,
      Map<Tensor, StorageLayout> storageLayouts,
      IndexWidth width) {
    return new StorageFlatten(params, storageLayouts, width).mutate(body);
  }

  /**
   * Strides for dimensions stored as {@code storage} says (null: dense and row-major), and the
   * buffer's size in elements.
   */
  private Layout layout(Buffer buffer, List<Expr> mins, List<Expr> extents, StorageLayout storage) {
    List<Integer> order = storage == null ? List.of() : storage.order();
    Map<Integer, dev.kernelgen.schedule.Stage.StorageAlign> align =
        storage == null ? Map.of() : storage.align();
    Map<Integer, Integer> phases = storage == null ? Map.of() : storage.phases();
    Map<Integer, Expr> between = new HashMap<>();
    Expr[] strides = new Expr[extents.size()];
    Expr stride = IntImm.of(DType.INT64, 1);
    for (int k = extents.size() - 1; k >= 0; k--) {
      int d = order.isEmpty() ? k : order.get(k);
      var a = align.get(d);
      if (a != null) {
        UserError.check(
            stride instanceof IntImm,
            "storage_align of '%s': the stride of its dimension %d is %s, not a constant",
            buffer.name(),
            d,
            stride.show());
        stride = IntImm.of(DType.INT64, a.apply(((IntImm) stride).value()));
      }
      strides[d] = stride;
      Integer f = phases.get(d);
      if (f != null) {
        Expr perPhase = Cast.of(DType.INT64, extents.get(d)).add(f - 1).floordiv(f);
        Expr apart = Simplifier.simplify(stride.mul(perPhase));
        between.put(d, apart);
        stride = Simplifier.simplify(apart.mul(f));
      } else {
        stride = Simplifier.simplify(stride.mul(Cast.of(DType.INT64, extents.get(d))));
      }
    }
    boolean small =
        stride instanceof IntImm s
            ? s.value() < Integer.MAX_VALUE
            : width == IndexWidth.NARROW
                && extents.stream().allMatch(e -> e.dtype() == DType.INT32);
    DType it = small ? DType.INT32 : DType.INT64;
    List<Expr> typed =
        Arrays.stream(strides)
            .map(x -> Simplifier.simplify(x instanceof IntImm ? Cast.of(it, x) : narrow(it, x)))
            .toList();
    Map<Integer, Phases> typedPhases = new HashMap<>();
    between.forEach(
        (d, x) ->
            typedPhases.put(
                d,
                new Phases(
                    phases.get(d),
                    Simplifier.simplify(x instanceof IntImm ? Cast.of(it, x) : narrow(it, x)))));
    Expr size = stride;
    if (align.isEmpty() && phases.isEmpty()) { // the product in dimension order, as before
      size = IntImm.of(DType.INT64, 1);
      for (Expr e : extents) {
        size = size.mul(Cast.of(DType.INT64, e));
      }
      size = Simplifier.simplify(size);
    }
    size = Simplifier.simplify(size instanceof IntImm ? Cast.of(it, size) : narrow(it, size));
    return new Layout(buffer, mins, typed, it, size, typedPhases);
  }

  /**
   * A symbolic stride in index type {@code it}: for 32-bit, the product of the 32-bit extents that
   * the 64-bit one was built from (the launcher checked it fits), not a narrowing cast of it.
   */
  private static Expr narrow(DType it, Expr stride) {
    if (it == DType.INT64) {
      return stride;
    }
    return switch (stride) {
      case Cast c when c.dtype() == DType.INT64 && c.value().dtype() == DType.INT32 -> c.value();
      case IntImm i -> IntImm.of(DType.INT32, i.value());
      case Binary b when b.op() == BinOp.MUL -> narrow(it, b.a()).mul(narrow(it, b.b()));
      default -> Cast.of(it, stride);
    };
  }

  /**
   * An index expression in 64 bits, cast at its leaves (variables, loads, 32-bit casts) and not at
   * its root: {@code i * w + j} becomes {@code (long) i * (long) w + (long) j}, which cannot wrap
   * where the 32-bit sum would.
   */
  static Expr widen(Expr e) {
    if (e.dtype() != DType.INT32) {
      return e;
    }
    return switch (e) {
      case IntImm i -> IntImm.of(DType.INT64, i.value());
      case Binary b when !b.op().isComparison() && !b.op().isLogical() ->
          Binary.of(b.op(), widen(b.a()), widen(b.b()));
      case Select s -> new Select(s.cond(), widen(s.trueValue()), widen(s.falseValue()));
      default -> Cast.of(DType.INT64, e);
    };
  }

  @Override
  public Stmt mutate(Stmt s) {
    return switch (s) {
      case For f -> {
        if (f.min() instanceof IntImm m && f.extent() instanceof IntImm e) {
          loopBounds.put(f.loopVar(), ConstIntBound.range(m.value(), e.value()));
        } else {
          ConstIntBound e = Simplifier.bound(f.extent(), loopBounds);
          if (e.max() != ConstIntBound.POS_INF && f.min() instanceof IntImm m) {
            loopBounds.put(f.loopVar(), new ConstIntBound(m.value(), m.value() + e.max() - 1));
          }
        }
        yield mutateStmtChildren(f);
      }
      case LetStmt l -> {
        ConstIntBound v = Simplifier.bound(l.value(), loopBounds);
        if (v.min() != ConstIntBound.NEG_INF || v.max() != ConstIntBound.POS_INF) {
          loopBounds.put(l.var(), v);
        }
        yield mutateStmtChildren(l);
      }
      case ProducerRealize r -> realize(r);
      case ProducerStore p -> {
        Layout l = layoutOf(p.tensor());
        yield new Store(l.buffer(), index(l, mutateAll(p.indices())), mutate(p.value()));
      }
      default -> mutateStmtChildren(s);
    };
  }

  private Stmt realize(ProducerRealize r) {
    Tensor t = r.tensor();
    List<Expr> mins = new ArrayList<>();
    List<Expr> extents = new ArrayList<>();
    for (Range rg : r.bounds()) {
      mins.add(rg.min());
      Expr ext = Simplifier.simplify(rg.extent());
      if (!(ext instanceof IntImm)) {
        ConstIntBound bound = Simplifier.bound(ext, loopBounds);
        if (bound.max() != ConstIntBound.POS_INF) {
          ext = IntImm.like(ext, bound.max());
        } else {
          UserError.check(
              r.scope() == MemoryScope.GLOBAL,
              "cannot allocate '%s' in %s memory: its extent %s is not bounded by a constant;"
                  + " compute it at a loop whose iterations have a fixed size",
              t.name(),
              r.scope(),
              ext.show());
        }
      }
      extents.add(ext);
    }
    Buffer buffer = new Buffer(t.name(), t.dtype(), r.scope(), List.of());
    Layout l = layout(buffer, mins, extents, storageLayouts.get(t));
    layouts.put(t, l);
    return new Allocate(buffer, l.size(), mutate(r.body()));
  }

  @Override
  public Expr mutate(Expr e) {
    Expr m = mutateChildren(e);
    if (m instanceof TensorRead r) {
      Layout l = layoutOf(r.tensor());
      return Load.of(l.buffer(), index(l, r.indices()));
    }
    return m;
  }

  private Layout layoutOf(Tensor t) {
    Layout l = layouts.get(t);
    if (l == null) {
      throw new dev.kernelgen.diag.CompilerBug("no buffer for tensor " + t.name());
    }
    return l;
  }

  private Expr index(Layout l, List<Expr> indices) {
    DType it = l.indexType();
    // A 32-bit buffer read through 64-bit loop variables (the wide variant's local tiles) is
    // indexed in 64 bits: narrowing each term left `(int32)(l + lo * 64) - (int32)(lo * 64)`,
    // which does not cancel, and `Conv[(int32_t)l]` in a vector loop over a 64-bit `l` is not
    // a contiguous access to gcc (the conv-bn-swish sample's generic kernel ran 3.4x slower in
    // 64 bits than in 32).
    for (int d = 0; d < indices.size(); d++) {
      if (indices.get(d).dtype() == DType.INT64 || l.mins().get(d).dtype() == DType.INT64) {
        it = DType.INT64;
      }
    }
    Expr flat = IntImm.of(it, 0);
    for (int d = 0; d < indices.size(); d++) {
      Expr i = it == DType.INT64 ? widen(indices.get(d)) : Cast.of(it, indices.get(d));
      Expr min = it == DType.INT64 ? widen(l.mins().get(d)) : Cast.of(it, l.mins().get(d));
      Expr stride = it == DType.INT64 ? widen(l.strides().get(d)) : l.strides().get(d);
      Phases ph = l.phases().get(d);
      if (ph == null) {
        flat = flat.add(i.sub(min).mul(stride));
      } else {
        // The phase and the position within it, simplified with the loops' bounds: a producer
        // loop split by the factor, `i = o * f + p` with `0 <= p < f`, stores at phase p.
        Expr between = it == DType.INT64 ? widen(ph.between()) : ph.between();
        Expr off = i.sub(min);
        Expr phase = Simplifier.simplify(off.floormod(IntImm.of(it, ph.factor())), loopBounds);
        Expr pos = Simplifier.simplify(off.floordiv(IntImm.of(it, ph.factor())), loopBounds);
        flat = flat.add(phase.mul(between)).add(pos.mul(stride));
      }
    }
    return Simplifier.simplify(flat);
  }
}
