package dev.kernelgen.tune.features;

import dev.kernelgen.te.BinOp;
import dev.kernelgen.te.Binary;
import dev.kernelgen.te.Buffer;
import dev.kernelgen.te.Call;
import dev.kernelgen.te.Expr;
import dev.kernelgen.te.ExprVisitor;
import dev.kernelgen.te.Load;
import dev.kernelgen.te.MemoryScope;
import dev.kernelgen.te.Select;
import dev.kernelgen.te.Var;
import dev.kernelgen.tir.Allocate;
import dev.kernelgen.tir.For;
import dev.kernelgen.tir.ForKind;
import dev.kernelgen.tir.IfThenElse;
import dev.kernelgen.tir.LetStmt;
import dev.kernelgen.tir.PrimFunc;
import dev.kernelgen.tir.Seq;
import dev.kernelgen.tir.Stmt;
import dev.kernelgen.tir.Store;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.IdentityHashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The feature vector of a lowered function: {@link #SIZE} numbers, named by {@link #NAMES}.
 *
 * <p>Every {@link Store} is a statement: its executions {@code N} are the product of the extents of
 * the loops around it (a guard is ignored, so {@code N} is an upper bound). Stores into one buffer
 * under one innermost loop form a group: the copies that unrolling made of one statement. The
 * <em>main</em> group is the one with the most floating-point operations. Counts are given as
 * {@code log2(1 + x)}, so that the features of two shapes differ by an offset rather than a factor;
 * the products of loop extents (9-14) as {@code log2(x)}, 0 when there is no such loop.
 *
 * <table>
 *   <caption>Features, by index</caption>
 *   <tr><th>index</th><th>name</th><th>meaning</th></tr>
 *   <tr><td>0-5</td><td>f_add, f_mul, f_fma, f_div, f_special, f_cmp</td><td>floating-point
 *       operations executed, over all stores: additions and subtractions, multiplications, fused
 *       multiply-adds (an addition of a product), divisions, math intrinsics (exp, sqrt, ...),
 *       min/max/comparisons/selects</td></tr>
 *   <tr><td>6-8</td><td>int_ops, stores, loads</td><td>integer operations (index arithmetic),
 *       element stores and element loads executed</td></tr>
 *   <tr><td>9-14</td><td>vector, unroll, parallel, block, thread, vthread</td><td>the main group's
 *       loop annotations: the product of the extents of its vectorized loops; of its unrolled
 *       loops times its unrolled copies; of its parallel loops; of the loops bound to {@code
 *       blockIdx.*}, {@code threadIdx.*} and {@code vthread}</td></tr>
 *   <tr><td>15</td><td>inner_vectorized</td><td>1 when the main group's innermost loop is
 *       vectorized</td></tr>
 *   <tr><td>16-17</td><td>depth, executions</td><td>the main group's loop depth and executions of
 *       one copy</td></tr>
 *   <tr><td>18-20</td><td>store_global, store_shared, store_local</td><td>the main group's store
 *       scope, one-hot</td></tr>
 *   <tr><td>21</td><td>flops_per_store</td><td>floating-point operations per execution of the
 *       main store (an fma counts 2)</td></tr>
 *   <tr><td>22-42</td><td>{scope}_{accessed, footprint, inner_lines, traffic_l1, traffic_l2,
 *       reuse, contiguous}</td><td>for each scope (global, shared, local), over every access (the
 *       store and its loads, each access on its own: a buffer read and written counts twice):
 *       bytes accessed; distinct bytes touched by the whole loop nest;
 *       cache lines touched by the innermost loop times the executions of the loops outside it;
 *       bytes brought in with a 32 KiB and with a 1 MiB cache (the lines of the largest loop level
 *       whose footprint fits, times that level's executions); accessed over distinct bytes; the
 *       fraction of accesses whose innermost stride is 0 or 1 element</td></tr>
 *   <tr><td>43-47</td><td>level{1-5}_bytes</td><td>the main group's distinct bytes touched by
 *       its innermost 1, 2, ... 5 loops, summed over its accesses</td></tr>
 *   <tr><td>48-52</td><td>level{1-5}_lines</td><td>the same in 64-byte cache lines</td></tr>
 *   <tr><td>53-56</td><td>kernels, blocks, threads, shared_bytes</td><td>GPU kernels (nests
 *       bound to {@code blockIdx}; 1 on a CPU), the largest grid, the largest block (threads),
 *       the largest shared memory per block</td></tr>
 *   <tr><td>57-59</td><td>local_alloc_bytes, global_alloc_bytes, allocations</td><td>bytes of
 *       local and of global (intermediate) allocations, and their number</td></tr>
 *   <tr><td>60</td><td>max_depth</td><td>the deepest loop nest</td></tr>
 *   <tr><td>61-62</td><td>intensity_l2, intensity_accessed</td><td>flops per byte of global
 *       traffic with a 1 MiB cache, and per global byte accessed (not logarithmic)</td></tr>
 *   <tr><td>63</td><td>flops</td><td>all floating-point operations (an fma counts 2)</td></tr>
 * </table>
 */
public final class LoopFeatures {
  /** Names a feature set; records store it with their vectors, which count only when it matches. */
  public static final String VERSION = "loop-v1";

  private static final String[] SCOPE = {"global", "shared", "local"};
  private static final int LEVELS = 5;

  public static final List<String> NAMES = names();

  public static final int SIZE = NAMES.size();

  private static final long L1 = 32 << 10;
  private static final long L2 = 1 << 20;

  private LoopFeatures() {}

  private static List<String> names() {
    List<String> n =
        new ArrayList<>(
            List.of(
                "f_add",
                "f_mul",
                "f_fma",
                "f_div",
                "f_special",
                "f_cmp",
                "int_ops",
                "stores",
                "loads",
                "vector",
                "unroll",
                "parallel",
                "block",
                "thread",
                "vthread",
                "inner_vectorized",
                "depth",
                "executions",
                "store_global",
                "store_shared",
                "store_local",
                "flops_per_store"));
    for (String s : SCOPE) {
      for (String m :
          List.of(
              "accessed",
              "footprint",
              "inner_lines",
              "traffic_l1",
              "traffic_l2",
              "reuse",
              "contiguous")) {
        n.add(s + "_" + m);
      }
    }
    for (int l = 1; l <= LEVELS; l++) {
      n.add("level" + l + "_bytes");
    }
    for (int l = 1; l <= LEVELS; l++) {
      n.add("level" + l + "_lines");
    }
    n.addAll(
        List.of(
            "kernels",
            "blocks",
            "threads",
            "shared_bytes",
            "local_alloc_bytes",
            "global_alloc_bytes",
            "allocations",
            "max_depth",
            "intensity_l2",
            "intensity_accessed",
            "flops"));
    return List.copyOf(n);
  }

  /** The features of {@code f}. */
  public static double[] of(PrimFunc f) {
    Walker w = new Walker();
    w.stmt(f.body());
    return w.vector();
  }

  /** Per-scope memory statistics, summed over accesses. */
  private static final class Memory {
    double accessed;
    double footprint;
    double innerLines;
    double trafficL1;
    double trafficL2;
    double contiguous;
    double weight;
  }

  /** A statement and its unrolled copies. */
  private static final class Group {
    final double[] ops = new double[9];
    int copies;
    List<For> loops;
    MemoryScope scope;
    double flopsPerStore;
    double executions;
    final double[] levelBytes = new double[LEVELS];
    final double[] levelLines = new double[LEVELS];

    double flops() {
      return ops[0] + ops[1] + 2 * ops[2] + ops[3] + ops[4] + ops[5];
    }
  }

  private static final class Walker {
    final List<For> loops = new ArrayList<>();
    final Map<Var, Expr> lets = new HashMap<>();
    final Map<For, Map<Buffer, Group>> groups = new IdentityHashMap<>();
    final Map<Buffer, Group> topLevel = new LinkedHashMap<>();
    final List<Group> order = new ArrayList<>();
    final Memory[] memory = {new Memory(), new Memory(), new Memory()};
    final double[] totals = new double[9];
    int kernels;
    double blocks;
    double threads;
    double sharedBytes;
    double kernelShared;
    Map<String, Long> kernelTags;
    double localAlloc;
    double globalAlloc;
    int allocations;
    int maxDepth;

    void stmt(Stmt s) {
      switch (s) {
        case For f -> loop(f);
        case LetStmt l -> {
          lets.put(l.var(), l.value());
          stmt(l.body());
        }
        case IfThenElse i -> {
          stmt(i.thenCase());
          if (i.elseCase() != null) {
            stmt(i.elseCase());
          }
        }
        case Seq q -> q.stmts().forEach(this::stmt);
        case Store st -> store(st);
        case Allocate a -> {
          double bytes = Math.max(1, value(a.size())) * a.buffer().dtype().bytes();
          allocations++;
          switch (a.buffer().scope()) {
            case SHARED -> kernelShared += bytes;
            case LOCAL -> localAlloc += bytes;
            case GLOBAL -> globalAlloc += bytes;
          }
          stmt(a.body());
        }
        default -> {}
      }
    }

    void loop(For f) {
      boolean launch =
          f.kind() == ForKind.THREAD_BINDING
              && f.threadTag().startsWith("blockIdx")
              && kernelTags == null;
      if (launch) {
        kernels++;
        kernelTags = new HashMap<>();
        kernelShared = 0;
      }
      if (f.threadTag() != null && kernelTags != null) {
        kernelTags.merge(f.threadTag(), extent(f), Math::max);
      }
      loops.add(f);
      maxDepth = Math.max(maxDepth, loops.size());
      stmt(f.body());
      loops.remove(loops.size() - 1);
      if (launch) {
        double b = 1;
        double t = 1;
        for (Map.Entry<String, Long> e : kernelTags.entrySet()) {
          if (e.getKey().startsWith("blockIdx")) {
            b *= e.getValue();
          } else if (e.getKey().startsWith("threadIdx")) {
            t *= e.getValue();
          }
        }
        blocks = Math.max(blocks, b);
        threads = Math.max(threads, t);
        sharedBytes = Math.max(sharedBytes, kernelShared);
        kernelTags = null;
      }
    }

    long extent(For f) {
      return Math.max(1, value(f.extent()));
    }

    long value(Expr e) {
      return IndexStride.eval(e, null, 0, lets, 0);
    }

    void store(Store st) {
      For inner = loops.isEmpty() ? null : loops.get(loops.size() - 1);
      Map<Buffer, Group> byBuffer =
          inner == null ? topLevel : groups.computeIfAbsent(inner, k -> new LinkedHashMap<>());
      Group g = byBuffer.get(st.buffer());
      if (g == null) {
        g = new Group();
        g.loops = List.copyOf(loops);
        g.scope = st.buffer().scope();
        byBuffer.put(st.buffer(), g);
        order.add(g);
      }
      g.copies++;
      double n = 1;
      for (For f : loops) {
        n *= extent(f);
      }
      g.executions = n;
      double[] perExec = new double[9];
      List<Load> reads = new ArrayList<>();
      count(st.value(), perExec, reads);
      count(st.index(), perExec, reads);
      perExec[7] = 1;
      perExec[8] = reads.size();
      for (int i = 0; i < perExec.length; i++) {
        g.ops[i] += perExec[i] * n;
        totals[i] += perExec[i] * n;
      }
      g.flopsPerStore =
          perExec[0] + perExec[1] + 2 * perExec[2] + perExec[3] + perExec[4] + perExec[5];
      access(g, st.buffer(), st.index(), n);
      for (Load l : reads) {
        access(g, l.buffer(), l.index(), n);
      }
    }

    /** Counts the operations of {@code e} once, and collects its loads. */
    void count(Expr e, double[] ops, List<Load> reads) {
      new ExprVisitor() {
        @Override
        public void visit(Expr x) {
          switch (x) {
            case Binary b when b.a().dtype().isFloat() -> {
              if ((b.op() == BinOp.ADD || b.op() == BinOp.SUB) && (isMul(b.a()) || isMul(b.b()))) {
                ops[2]++;
                Binary m = (Binary) (isMul(b.a()) ? b.a() : b.b());
                visit(m.a());
                visit(m.b());
                visit(isMul(b.a()) ? b.b() : b.a());
                return;
              }
              switch (b.op()) {
                case ADD, SUB -> ops[0]++;
                case MUL -> ops[1]++;
                case DIV -> ops[3]++;
                default -> ops[5]++;
              }
            }
            case Binary b -> ops[6]++;
            case Call c -> ops[4]++;
            case Select s when s.dtype().isFloat() -> ops[5]++;
            case Load l -> reads.add(l);
            default -> {}
          }
          super.visit(x);
        }
      }.visit(e);
    }

    static boolean isMul(Expr e) {
      return e instanceof Binary b && b.op() == BinOp.MUL && b.dtype().isFloat();
    }

    /** Adds one access of {@code buffer} at {@code index}, executed {@code n} times. */
    void access(Group g, Buffer buffer, Expr index, double n) {
      int bytes = buffer.dtype().bytes();
      int d = loops.size();
      long[] stride = new long[d];
      long[] ext = new long[d];
      for (int i = 0; i < d; i++) {
        stride[i] = Math.abs(IndexStride.stride(index, loops.get(i).loopVar(), lets));
        ext[i] = extent(loops.get(i));
      }
      // Level k: the innermost k loops.
      double[] elems = new double[d + 1];
      double[] lines = new double[d + 1];
      double[] outer = new double[d + 1];
      elems[0] = 1;
      lines[0] = 1;
      for (int k = 0; k <= d; k++) {
        double o = 1;
        for (int i = 0; i < d - k; i++) {
          o *= ext[i];
        }
        outer[k] = o;
      }
      for (int k = 1; k <= d; k++) {
        double span = 1;
        double prod = 1;
        long smin = Long.MAX_VALUE;
        int at = -1;
        for (int i = d - k; i < d; i++) {
          if (stride[i] != 0) {
            span += (double) stride[i] * (ext[i] - 1);
            prod *= ext[i];
            if (stride[i] < smin) {
              smin = stride[i];
              at = i;
            }
          }
        }
        elems[k] = Math.min(prod, span);
        double l = prod;
        if (at >= 0 && smin * bytes < 64) {
          l = prod / ext[at] * Math.ceil((double) ext[at] * smin * bytes / 64);
        }
        lines[k] = Math.max(1, Math.min(l, Math.ceil(span * bytes / 64) + 1));
      }
      Memory m = memory[buffer.scope().ordinal()];
      m.accessed += n * bytes;
      m.footprint += elems[d] * bytes;
      m.innerLines += lines[Math.min(1, d)] * outer[Math.min(1, d)];
      m.trafficL1 += traffic(lines, outer, L1);
      m.trafficL2 += traffic(lines, outer, L2);
      m.weight += n;
      if (d == 0 || stride[d - 1] <= 1) {
        m.contiguous += n;
      }
      for (int k = 1; k <= LEVELS; k++) {
        int kk = Math.min(k, d);
        g.levelBytes[k - 1] += elems[kk] * bytes;
        g.levelLines[k - 1] += lines[kk];
      }
    }

    static double traffic(double[] lines, double[] outer, long cache) {
      int best = 0;
      for (int k = 1; k < lines.length; k++) {
        if (lines[k] * 64 <= cache) {
          best = k;
        }
      }
      return lines[best] * 64 * outer[best];
    }

    double[] vector() {
      double[] x = new double[SIZE];
      for (int i = 0; i < 9; i++) {
        x[i] = log(totals[i]);
      }
      Group main = null;
      for (Group g : order) {
        if (main == null || g.flops() > main.flops()) {
          main = g;
        }
      }
      if (main != null) {
        double vector = 1;
        double unroll = main.copies;
        double parallel = 1;
        double block = 1;
        double thread = 1;
        double vthread = 1;
        for (For f : main.loops) {
          long e = extent(f);
          switch (f.kind()) {
            case VECTORIZED -> vector *= e;
            case UNROLLED -> unroll *= e;
            case PARALLEL -> parallel *= e;
            case VTHREAD -> vthread *= e;
            case THREAD_BINDING -> {
              if (f.threadTag().startsWith("blockIdx")) {
                block *= e;
              } else if (f.threadTag().startsWith("threadIdx")) {
                thread *= e;
              } else {
                vthread *= e;
              }
            }
            case SERIAL -> {}
          }
        }
        x[9] = log2(vector);
        x[10] = log2(unroll);
        x[11] = log2(parallel);
        x[12] = log2(block);
        x[13] = log2(thread);
        x[14] = log2(vthread);
        x[15] =
            !main.loops.isEmpty()
                    && main.loops.get(main.loops.size() - 1).kind() == ForKind.VECTORIZED
                ? 1
                : 0;
        x[16] = main.loops.size();
        x[17] = log(main.executions);
        x[18 + main.scope.ordinal()] = 1;
        x[21] = main.flopsPerStore;
        for (int k = 0; k < LEVELS; k++) {
          x[43 + k] = log(main.levelBytes[k]);
          x[48 + k] = log(main.levelLines[k]);
        }
      }
      for (int s = 0; s < 3; s++) {
        Memory m = memory[s];
        int at = 22 + 7 * s;
        x[at] = log(m.accessed);
        x[at + 1] = log(m.footprint);
        x[at + 2] = log(m.innerLines);
        x[at + 3] = log(m.trafficL1);
        x[at + 4] = log(m.trafficL2);
        x[at + 5] = m.footprint == 0 ? 0 : log(m.accessed / m.footprint);
        x[at + 6] = m.weight == 0 ? 0 : m.contiguous / m.weight;
      }
      double flops = totals[0] + totals[1] + 2 * totals[2] + totals[3] + totals[4] + totals[5];
      x[53] = Math.max(1, kernels);
      x[54] = log(blocks);
      x[55] = log(threads);
      x[56] = log(sharedBytes);
      x[57] = log(localAlloc);
      x[58] = log(globalAlloc);
      x[59] = allocations;
      x[60] = maxDepth;
      x[61] = memory[0].trafficL2 == 0 ? 0 : flops / memory[0].trafficL2;
      x[62] = memory[0].accessed == 0 ? 0 : flops / memory[0].accessed;
      x[63] = log(flops);
      return x;
    }

    static double log2(double v) {
      return Math.log(Math.max(1, v)) / Math.log(2);
    }

    static double log(double v) {
      return Math.log(1 + Math.max(0, v)) / Math.log(2);
    }
  }
}
