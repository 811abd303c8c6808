package dev.kernelgen.eval;

import dev.kernelgen.diag.CompilerBug;
import dev.kernelgen.te.Buffer;
import dev.kernelgen.te.DType;
import dev.kernelgen.te.Expr;
import dev.kernelgen.te.Load;
import dev.kernelgen.te.MemoryScope;
import dev.kernelgen.te.Var;
import dev.kernelgen.tir.Allocate;
import dev.kernelgen.tir.Barrier;
import dev.kernelgen.tir.Evaluate;
import dev.kernelgen.tir.For;
import dev.kernelgen.tir.ForKind;
import dev.kernelgen.tir.IfThenElse;
import dev.kernelgen.tir.LetStmt;
import dev.kernelgen.tir.ProducerRealize;
import dev.kernelgen.tir.ProducerStore;
import dev.kernelgen.tir.Seq;
import dev.kernelgen.tir.Stmt;
import dev.kernelgen.tir.StmtVisitor;
import dev.kernelgen.tir.Store;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Compiles the loop IR's statements into nodes for {@link IRInterpreter}; expressions through
 * {@link ExprCompiler}, buffer loads and stores through {@link BufferAccess}. A threadIdx nest with
 * a barrier becomes one block of concurrent threads ({@link BlockLauncher}).
 */
final class StmtCompiler extends ExprCompiler {
  private final Map<Buffer, Integer> bufferSlots = new HashMap<>();

  // The block being compiled, while inside a threadIdx nest that has a barrier.
  private Map<String, Integer> blockTags;
  private List<List<LongNode>> blockExtents;
  private int sharedCount;

  int bindBuffer(Buffer b) {
    return bufferSlots.computeIfAbsent(b, k -> bufferSlots.size());
  }

  int bufferSlot(Buffer b) {
    Integer s = bufferSlots.get(b);
    if (s == null) {
      throw new CompilerBug("buffer '" + b.name() + "' is accessed outside its allocation");
    }
    return s;
  }

  int bufferSlotCount() {
    return bufferSlots.size();
  }

  @Override
  protected RuntimeException unbound(Var v) {
    return new CompilerBug("variable '" + v.name() + "' is used but bound nowhere around it");
  }

  @Override
  protected LongNode otherLong(Expr e) {
    if (!(e instanceof Load l)) {
      throw notLowered(e);
    }
    checkLoad(l);
    int slot = bufferSlot(l.buffer());
    LinearIndex idx = index(l.index());
    return BufferAccess.loadInt(l.dtype(), slot, idx);
  }

  @Override
  protected DoubleNode otherDouble(Expr e) {
    if (!(e instanceof Load l)) {
      throw notLowered(e);
    }
    checkLoad(l);
    int slot = bufferSlot(l.buffer());
    LinearIndex idx = index(l.index());
    return BufferAccess.loadFloat(l.dtype(), slot, idx);
  }

  private static void checkLoad(Load l) {
    CompilerBug.check(
        l.dtype() == l.buffer().dtype(),
        "%s load from %s buffer '%s'",
        l.dtype(),
        l.buffer().dtype(),
        l.buffer().name());
  }

  private static CompilerBug notLowered(Expr e) {
    return new CompilerBug(
        "the loop IR still holds a tensor-level expression (must be lowered first): " + e.show());
  }

  // ---------------------------------------------------------------- statements

  StmtNode stmt(Stmt s) {
    return switch (s) {
      case For f -> forLoop(f);
      case LetStmt l -> {
        StmtNode set = assign(l.var(), l.value());
        StmtNode body = stmt(l.body());
        yield new StmtNode() {
          @Override
          void exec(Frame f) {
            set.exec(f);
            body.exec(f);
          }
        };
      }
      case IfThenElse i -> {
        BoolNode c = bool(i.condition());
        StmtNode t = stmt(i.thenCase());
        StmtNode e = i.elseCase() == null ? null : stmt(i.elseCase());
        yield e == null
            ? new StmtNode() {
              @Override
              void exec(Frame f) {
                if (c.eval(f)) {
                  t.exec(f);
                }
              }
            }
            : new StmtNode() {
              @Override
              void exec(Frame f) {
                if (c.eval(f)) {
                  t.exec(f);
                } else {
                  e.exec(f);
                }
              }
            };
      }
      case Seq q -> {
        StmtNode[] parts = q.stmts().stream().map(this::stmt).toArray(StmtNode[]::new);
        yield new StmtNode() {
          @Override
          void exec(Frame f) {
            for (StmtNode p : parts) {
              p.exec(f);
            }
          }
        };
      }
      case Store st -> store(st);
      case Allocate a -> allocate(a);
      case Evaluate e -> {
        if (e.isNop()) {
          yield NOP;
        }
        if (e.value().dtype().isFloat()) {
          DoubleNode v = dbl(e.value());
          yield new StmtNode() {
            @Override
            void exec(Frame f) {
              v.eval(f);
            }
          };
        }
        LongNode v = lng(e.value());
        yield new StmtNode() {
          @Override
          void exec(Frame f) {
            v.eval(f);
          }
        };
      }
      case Barrier b -> {
        if (blockTags == null) {
          // Not under a threadIdx loop: the threads ran one after the other up to here.
          yield NOP;
        }
        yield new StmtNode() {
          @Override
          void exec(Frame f) {
            f.block.await(b, f.threadIdx);
          }
        };
      }
      case ProducerRealize r ->
          throw new CompilerBug(
              "realize of '" + r.tensor().name() + "' not flattened (run storage flattening)");
      case ProducerStore p ->
          throw new CompilerBug(
              "store to tensor '" + p.tensor().name() + "' not flattened (run storage flattening)");
    };
  }

  private static final StmtNode NOP =
      new StmtNode() {
        @Override
        void exec(Frame f) {}
      };

  private StmtNode assign(Var v, Expr value) {
    CompilerBug.check(
        v.dtype() == value.dtype(),
        "let %s: %s bound to a %s value",
        v.name(),
        v.dtype(),
        value.dtype());
    if (v.dtype().isFloat()) {
      DoubleNode x = dbl(value);
      int slot = bind(v);
      return new StmtNode() {
        @Override
        void exec(Frame f) {
          f.doubles[slot] = x.eval(f);
        }
      };
    }
    LongNode x = lng(value);
    int slot = bind(v);
    return new StmtNode() {
      @Override
      void exec(Frame f) {
        f.ints[slot] = x.eval(f);
      }
    };
  }

  private StmtNode forLoop(For loop) {
    if (isThreadIdx(loop) && blockTags == null && containsBarrier(loop.body())) {
      return blockLaunch(loop);
    }
    LongNode min = lng(loop.min());
    LongNode extent = lng(loop.extent());
    int slot = bind(loop.loopVar());
    if (isThreadIdx(loop) && blockTags != null) {
      int tag = blockTags.computeIfAbsent(loop.threadTag(), k -> blockTags.size());
      if (blockExtents.size() <= tag) {
        blockExtents.add(new ArrayList<>());
      }
      blockExtents.get(tag).add(extent);
      StmtNode body = stmt(loop.body());
      // This thread's iteration only; threads past the loop's extent skip it.
      return new StmtNode() {
        @Override
        void exec(Frame f) {
          long t = f.threadIdx[tag];
          if (t < extent.eval(f)) {
            f.ints[slot] = min.eval(f) + t;
            body.exec(f);
          }
        }
      };
    }
    StmtNode body = stmt(loop.body());
    return new StmtNode() {
      @Override
      void exec(Frame f) {
        long lo = min.eval(f);
        long hi = lo + extent.eval(f);
        long[] ints = f.ints;
        for (long v = lo; v < hi; v++) {
          ints[slot] = v;
          body.exec(f);
        }
      }
    };
  }

  private StmtNode blockLaunch(For loop) {
    blockTags = new LinkedHashMap<>();
    blockExtents = new ArrayList<>();
    sharedCount = 0;
    StmtNode nest = forLoop(loop);
    List<String> tags = List.copyOf(blockTags.keySet());
    LongNode[][] extents =
        blockExtents.stream().map(l -> l.toArray(LongNode[]::new)).toArray(LongNode[][]::new);
    int shared = sharedCount;
    blockTags = null;
    blockExtents = null;
    return new StmtNode() {
      @Override
      void exec(Frame f) {
        BlockLauncher.launch(f, nest, tags, extents, shared);
      }
    };
  }

  private StmtNode allocate(Allocate a) {
    Buffer b = a.buffer();
    LongNode size = lng(a.size());
    int slot = bindBuffer(b);
    StmtNode body = stmt(a.body());
    String name = b.name();
    DType dtype = b.dtype();
    if (blockTags != null && b.scope() == MemoryScope.SHARED) {
      int k = sharedCount++;
      return new StmtNode() {
        @Override
        void exec(Frame f) {
          f.mems[slot] =
              f.block.shared(k, name, dtype, () -> BufferAccess.checkSize(name, size.eval(f)));
          body.exec(f);
        }
      };
    }
    return new StmtNode() {
      @Override
      void exec(Frame f) {
        f.mems[slot] = Mem.allocate(name, dtype, BufferAccess.checkSize(name, size.eval(f)));
        body.exec(f);
      }
    };
  }

  private StmtNode store(Store st) {
    int slot = bufferSlot(st.buffer());
    LinearIndex idx = index(st.index());
    if (st.buffer().dtype().isFloat()) {
      return BufferAccess.storeFloat(st.buffer().dtype(), slot, idx, dbl(st.value()));
    }
    return BufferAccess.storeInt(st.buffer().dtype(), slot, idx, lng(st.value()));
  }

  private static boolean containsBarrier(Stmt s) {
    boolean[] found = {false};
    new StmtVisitor() {
      @Override
      public void visit(Stmt st) {
        if (st instanceof Barrier) {
          found[0] = true;
        } else if (!found[0]) {
          super.visit(st);
        }
      }
    }.visit(s);
    return found[0];
  }

  private static boolean isThreadIdx(For f) {
    return f.kind() == ForKind.THREAD_BINDING && f.threadTag().startsWith("threadIdx.");
  }
}
