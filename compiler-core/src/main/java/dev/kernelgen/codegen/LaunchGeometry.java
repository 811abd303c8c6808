package dev.kernelgen.codegen;

import dev.kernelgen.diag.CompilerBug;
import dev.kernelgen.diag.UserError;
import dev.kernelgen.schedule.ThreadTag;
import dev.kernelgen.te.BinOp;
import dev.kernelgen.te.Binary;
import dev.kernelgen.te.Cast;
import dev.kernelgen.te.Expr;
import dev.kernelgen.te.FreeVars;
import dev.kernelgen.te.IntImm;
import dev.kernelgen.te.Select;
import dev.kernelgen.te.Var;
import dev.kernelgen.tir.For;
import dev.kernelgen.tir.ForKind;
import dev.kernelgen.tir.PrimFunc;
import dev.kernelgen.tir.Stmt;
import dev.kernelgen.tir.StmtVisitor;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;

/**
 * The grid and block extents of a GPU kernel, as expressions of its symbolic dims. The launch
 * extent of a thread tag is the largest extent among the loops bound to it; a loop whose extent is
 * smaller than that (or not known to be equal) is guarded in the kernel. Unbound dimensions are 1.
 */
public record LaunchGeometry(
    Expr gridX, Expr gridY, Expr gridZ, Expr blockX, Expr blockY, Expr blockZ) {

  private static final List<String> TAGS =
      List.of(
          ThreadTag.BLOCK_X,
          ThreadTag.BLOCK_Y,
          ThreadTag.BLOCK_Z,
          ThreadTag.THREAD_X,
          ThreadTag.THREAD_Y,
          ThreadTag.THREAD_Z);

  /** The geometry of {@code f}, from its loops bound to blockIdx.* and threadIdx.*. */
  public static LaunchGeometry of(PrimFunc f) {
    Map<String, List<Expr>> extents = new LinkedHashMap<>();
    new StmtVisitor() {
      @Override
      public void visit(Stmt s) {
        if (s instanceof For loop && loop.kind() == ForKind.THREAD_BINDING) {
          UserError.check(
              TAGS.contains(loop.threadTag()),
              "loop %s of kernel %s is bound to '%s', which is not a GPU thread index (known: %s)",
              loop.loopVar().name(),
              f.name(),
              loop.threadTag(),
              TAGS);
          for (Var v : FreeVars.of(loop.extent())) {
            UserError.check(
                f.scalars().contains(v),
                "the extent %s of loop %s (%s) in kernel %s depends on %s, which is not a"
                    + " parameter: a launch extent must be computable from the symbolic dims",
                loop.extent().show(),
                loop.loopVar().name(),
                loop.threadTag(),
                f.name(),
                v.name());
          }
          List<Expr> l = extents.computeIfAbsent(loop.threadTag(), t -> new ArrayList<>());
          if (!l.contains(loop.extent())) {
            l.add(loop.extent());
          }
        }
        super.visit(s);
      }
    }.visit(f.body());
    List<Expr> dims = new ArrayList<>();
    for (String tag : TAGS) {
      dims.add(launchExtent(extents.getOrDefault(tag, List.of())));
    }
    return new LaunchGeometry(
        dims.get(0), dims.get(1), dims.get(2), dims.get(3), dims.get(4), dims.get(5));
  }

  private static Expr launchExtent(List<Expr> extents) {
    if (extents.isEmpty()) {
      return IntImm.of(1);
    }
    if (extents.stream().allMatch(e -> e instanceof IntImm)) {
      return extents.stream().max((a, b) -> Long.compare(value(a), value(b))).orElseThrow();
    }
    Expr m = extents.get(0);
    for (Expr e : extents.subList(1, extents.size())) {
      m = Binary.of(BinOp.MAX, m, e);
    }
    return m;
  }

  private static long value(Expr e) {
    return ((IntImm) e).value();
  }

  /** The launch extent of a thread tag ({@code blockIdx.x}, ..., {@code threadIdx.z}). */
  public Expr extent(String tag) {
    return switch (tag) {
      case ThreadTag.BLOCK_X -> gridX;
      case ThreadTag.BLOCK_Y -> gridY;
      case ThreadTag.BLOCK_Z -> gridZ;
      case ThreadTag.THREAD_X -> blockX;
      case ThreadTag.THREAD_Y -> blockY;
      case ThreadTag.THREAD_Z -> blockZ;
      default -> throw new CompilerBug("not a GPU thread index: " + tag);
    };
  }

  /** Whether a loop bound to a thread index runs for fewer indices than are launched. */
  boolean needsGuard(For loop) {
    return !loop.extent().equals(extent(loop.threadTag()));
  }

  /** Threads per block, when the block extents are constants. */
  public OptionalLong threadsPerBlock() {
    if (blockX instanceof IntImm x && blockY instanceof IntImm y && blockZ instanceof IntImm z) {
      return OptionalLong.of(x.value() * y.value() * z.value());
    }
    return OptionalLong.empty();
  }

  /**
   * The six extents, {grid x, y, z, block x, y, z}, for actual values of the symbolic dims.
   *
   * @throws UserError when a dim the geometry needs has no value
   */
  public long[] evaluate(Map<Var, Long> dims) {
    return new long[] {
      eval(gridX, dims),
      eval(gridY, dims),
      eval(gridZ, dims),
      eval(blockX, dims),
      eval(blockY, dims),
      eval(blockZ, dims)
    };
  }

  private static long eval(Expr e, Map<Var, Long> dims) {
    return switch (e) {
      case IntImm i -> i.value();
      case Var v -> {
        Long x = dims.get(v);
        UserError.check(x != null, "the launch geometry needs the value of dim %s", v.name());
        yield x;
      }
      case Cast c when c.dtype().isInt() -> eval(c.value(), dims);
      case Select s when s.cond() instanceof Binary cond && cond.op().isComparison() ->
          compare(cond, dims) ? eval(s.trueValue(), dims) : eval(s.falseValue(), dims);
      case Binary b -> {
        long x = eval(b.a(), dims);
        long y = eval(b.b(), dims);
        yield switch (b.op()) {
          case ADD -> x + y;
          case SUB -> x - y;
          case MUL -> x * y;
          case FLOOR_DIV -> Math.floorDiv(x, y);
          case FLOOR_MOD -> Math.floorMod(x, y);
          case MIN -> Math.min(x, y);
          case MAX -> Math.max(x, y);
          default -> throw new CompilerBug("launch extent is not integer arithmetic: " + e.show());
        };
      }
      default -> throw new CompilerBug("launch extent is not integer arithmetic: " + e.show());
    };
  }

  private static boolean compare(Binary c, Map<Var, Long> dims) {
    long x = eval(c.a(), dims);
    long y = eval(c.b(), dims);
    return switch (c.op()) {
      case EQ -> x == y;
      case NE -> x != y;
      case LT -> x < y;
      case LE -> x <= y;
      case GT -> x > y;
      case GE -> x >= y;
      default -> throw new CompilerBug("not a comparison: " + c.show());
    };
  }
}
