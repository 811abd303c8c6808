package dev.kernelgen.eval;

import dev.kernelgen.diag.CompilerBug;
import dev.kernelgen.diag.UserError;
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
import dev.kernelgen.tir.PrimFunc;
import dev.kernelgen.tir.ProducerRealize;
import dev.kernelgen.tir.ProducerStore;
import dev.kernelgen.tir.Seq;
import dev.kernelgen.tir.Stmt;
import dev.kernelgen.tir.StmtVisitor;
import dev.kernelgen.tir.Store;
import java.lang.foreign.ValueLayout;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Runs a lowered {@link PrimFunc} on host arrays, without any native compiler. Every load and store
 * is checked against its buffer's size; an access outside is a {@link CompilerBug} naming the
 * buffer and the index. Allocations are fresh for each execution of the {@link Allocate}, and
 * floating-point ones start as NaN so that reads of memory nobody wrote show up in the results.
 *
 * <p>Loops of every kind run serially, blockIdx and vthread loops included. So do threadIdx loops,
 * unless the body under them has a barrier: then sequential execution would be wrong, and the
 * outermost threadIdx loop runs one block of concurrent virtual threads, one per combination of
 * thread indices of the nest under it. Each thread has its own variables and its own local
 * allocations; shared allocations inside the nest exist once per block; a barrier waits for all
 * threads of the block. Thread extents are evaluated when the block starts, so they must not depend
 * on variables bound inside the nest (they are constants or symbolic dims in practice).
 */
public final class IRInterpreter {
  private IRInterpreter() {}

  /**
   * Runs {@code f}: {@code args} in the order of {@code f.params()}, {@code scalars} with a value
   * for each of {@code f.scalars()}.
   */
  public static void run(PrimFunc f, List<NDArray> args, Map<Var, Long> scalars) {
    UserError.check(
        args.size() == f.params().size(),
        "%s takes %d buffers, got %d",
        f.name(),
        f.params().size(),
        args.size());
    Compiler c = new Compiler();
    for (Var v : f.scalars()) {
      UserError.check(scalars.containsKey(v), "no value for scalar '%s' of %s", v, f.name());
      c.bind(v);
    }
    Map<Buffer, List<LongNode>> shapes = new LinkedHashMap<>();
    for (Buffer b : f.params()) {
      c.bindBuffer(b);
      shapes.put(b, b.shape().stream().map(c::lng).toList());
    }
    StmtNode body = c.stmt(f.body());

    Frame frame = new Frame(c.longSlotCount(), c.doubleSlotCount(), c.bufferSlotCount());
    for (Var v : f.scalars()) {
      frame.ints[c.bind(v)] = scalars.get(v);
    }
    for (int k = 0; k < args.size(); k++) {
      Buffer b = f.params().get(k);
      NDArray a = args.get(k);
      UserError.check(
          a.dtype() == b.dtype(),
          "%s: buffer '%s' is %s, but the argument is %s",
          f.name(),
          b.name(),
          b.dtype(),
          a.dtype());
      long n = 1;
      List<Long> dims = new ArrayList<>();
      for (LongNode d : shapes.get(b)) {
        long v = d.eval(frame);
        dims.add(v);
        n *= v;
      }
      UserError.check(
          a.size() == n,
          "%s: buffer '%s' has shape %s = %d elements here, but the argument has %d",
          f.name(),
          b.name(),
          dims,
          n,
          a.size());
      frame.mems[c.bufferSlot(b)] = new Mem(b.name(), b.dtype(), a.segment(), a.size());
    }
    body.exec(frame);
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

  /** Compiles statements; expressions through {@link ExprCompiler}. */
  private static final class Compiler extends ExprCompiler {
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
      return switch (l.dtype()) {
        case INT32 ->
            new LongNode() {
              @Override
              long eval(Frame f) {
                Mem m = f.mems[slot];
                return m.segment().getAtIndex(ValueLayout.JAVA_INT, loadIndex(m, idx.eval(f)));
              }
            };
        case INT64 ->
            new LongNode() {
              @Override
              long eval(Frame f) {
                Mem m = f.mems[slot];
                return m.segment().getAtIndex(ValueLayout.JAVA_LONG, loadIndex(m, idx.eval(f)));
              }
            };
        case BOOL ->
            new LongNode() {
              @Override
              long eval(Frame f) {
                Mem m = f.mems[slot];
                return m.segment().get(ValueLayout.JAVA_BYTE, loadIndex(m, idx.eval(f))) != 0
                    ? 1
                    : 0;
              }
            };
        default -> throw new CompilerBug("integer load of " + l.dtype());
      };
    }

    @Override
    protected DoubleNode otherDouble(Expr e) {
      if (!(e instanceof Load l)) {
        throw notLowered(e);
      }
      checkLoad(l);
      int slot = bufferSlot(l.buffer());
      LinearIndex idx = index(l.index());
      return l.dtype() == DType.FLOAT32
          ? new DoubleNode() {
            @Override
            double eval(Frame f) {
              Mem m = f.mems[slot];
              return m.segment().getAtIndex(ValueLayout.JAVA_FLOAT, loadIndex(m, idx.eval(f)));
            }
          }
          : new DoubleNode() {
            @Override
            double eval(Frame f) {
              Mem m = f.mems[slot];
              return m.segment().getAtIndex(ValueLayout.JAVA_DOUBLE, loadIndex(m, idx.eval(f)));
            }
          };
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
                "store to tensor '"
                    + p.tensor().name()
                    + "' not flattened (run storage flattening)");
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
          launchBlock(f, nest, tags, extents, shared);
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
            f.mems[slot] = f.block.shared(k, name, dtype, () -> checkSize(name, size.eval(f)));
            body.exec(f);
          }
        };
      }
      return new StmtNode() {
        @Override
        void exec(Frame f) {
          f.mems[slot] = Mem.allocate(name, dtype, checkSize(name, size.eval(f)));
          body.exec(f);
        }
      };
    }

    private StmtNode store(Store st) {
      int slot = bufferSlot(st.buffer());
      LinearIndex idx = index(st.index());
      if (st.buffer().dtype().isFloat()) {
        DoubleNode v = dbl(st.value());
        return st.buffer().dtype() == DType.FLOAT32
            ? new StmtNode() {
              @Override
              void exec(Frame f) {
                Mem m = f.mems[slot];
                long i = storeIndex(m, idx.eval(f));
                m.segment().setAtIndex(ValueLayout.JAVA_FLOAT, i, (float) v.eval(f));
              }
            }
            : new StmtNode() {
              @Override
              void exec(Frame f) {
                Mem m = f.mems[slot];
                long i = storeIndex(m, idx.eval(f));
                m.segment().setAtIndex(ValueLayout.JAVA_DOUBLE, i, v.eval(f));
              }
            };
      }
      LongNode v = lng(st.value());
      return switch (st.buffer().dtype()) {
        case INT32 ->
            new StmtNode() {
              @Override
              void exec(Frame f) {
                Mem m = f.mems[slot];
                long i = storeIndex(m, idx.eval(f));
                m.segment().setAtIndex(ValueLayout.JAVA_INT, i, (int) v.eval(f));
              }
            };
        case INT64 ->
            new StmtNode() {
              @Override
              void exec(Frame f) {
                Mem m = f.mems[slot];
                long i = storeIndex(m, idx.eval(f));
                m.segment().setAtIndex(ValueLayout.JAVA_LONG, i, v.eval(f));
              }
            };
        default ->
            new StmtNode() {
              @Override
              void exec(Frame f) {
                Mem m = f.mems[slot];
                long i = storeIndex(m, idx.eval(f));
                m.segment().set(ValueLayout.JAVA_BYTE, i, (byte) (v.eval(f) != 0 ? 1 : 0));
              }
            };
      };
    }
  }

  private static long checkSize(String buffer, long size) {
    CompilerBug.check(size >= 0, "allocation of '%s' with negative size %d", buffer, size);
    return size;
  }

  static long loadIndex(Mem m, long i) {
    if (i < 0 || i >= m.size()) {
      throw new CompilerBug(
          "load from '" + m.name() + "' at index " + i + ", outside [0, " + m.size() + ")");
    }
    return i;
  }

  static long storeIndex(Mem m, long i) {
    if (i < 0 || i >= m.size()) {
      throw new CompilerBug(
          "store to '" + m.name() + "' at index " + i + ", outside [0, " + m.size() + ")");
    }
    return i;
  }

  /** Most threads a block may have: far above any GPU's 1024, to catch runaway extents. */
  private static final long MAX_BLOCK_THREADS = 1 << 16;

  private static void launchBlock(
      Frame f, StmtNode nest, List<String> tags, LongNode[][] extents, int shared) {
    long[] dims = new long[tags.size()];
    long total = 1;
    for (int t = 0; t < dims.length; t++) {
      for (LongNode e : extents[t]) {
        dims[t] = Math.max(dims[t], e.eval(f));
      }
      total *= dims[t];
    }
    if (total <= 0) {
      return;
    }
    CompilerBug.check(total <= MAX_BLOCK_THREADS, "a block of %d threads %s", total, tags);
    BlockContext block = new BlockContext((int) total, tags, shared);
    Thread[] threads = new Thread[(int) total];
    long[] idx = new long[dims.length];
    for (int k = 0; k < total; k++) {
      Frame mine = f.copy();
      mine.block = block;
      mine.threadIdx = idx.clone();
      threads[k] =
          Thread.ofVirtual()
              .name("block-thread-" + k)
              .start(
                  () -> {
                    try {
                      nest.exec(mine);
                      block.exit(mine.threadIdx);
                    } catch (Throwable t) {
                      block.fail(t);
                    }
                  });
      for (int d = dims.length - 1; d >= 0; d--) {
        if (++idx[d] < dims[d]) {
          break;
        }
        idx[d] = 0;
      }
    }
    for (Thread t : threads) {
      try {
        t.join();
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new CompilerBug("interrupted while running a block");
      }
    }
    Throwable failure = block.failure();
    if (failure instanceof RuntimeException r) {
      throw r;
    }
    if (failure instanceof Error err) {
      throw err;
    }
    if (failure != null) {
      throw new CompilerBug("block failed: " + failure);
    }
  }
}
