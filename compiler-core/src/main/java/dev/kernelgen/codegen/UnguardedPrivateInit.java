package dev.kernelgen.codegen;

import dev.kernelgen.arith.ConstIntBound;
import dev.kernelgen.arith.Simplifier;
import dev.kernelgen.te.Buffer;
import dev.kernelgen.te.FloatImm;
import dev.kernelgen.te.IntImm;
import dev.kernelgen.te.MemoryScope;
import dev.kernelgen.te.Var;
import dev.kernelgen.tir.Allocate;
import dev.kernelgen.tir.For;
import dev.kernelgen.tir.IfThenElse;
import dev.kernelgen.tir.Seq;
import dev.kernelgen.tir.Stmt;
import dev.kernelgen.tir.StmtMutator;
import dev.kernelgen.tir.StmtVisitor;
import dev.kernelgen.tir.Store;
import java.util.HashMap;
import java.util.Map;

/**
 * Drops the bound check around the initialisation of a thread-private array: {@code if (in bounds)
 * { acc[i] = 0; }} becomes {@code acc[i] = 0;} when every store under the check writes a constant
 * into a private array at an index provably inside it (constant loops only), so the rewrite can
 * change no result. The OpenCL printer applies it to kernels with barriers: PoCL 5.0's work-group
 * loops ("loopvec", LLVM 16) lose a private accumulator zeroed under such a check before a barrier
 * and accumulated after it (wrong results on the H200 machine's OpenCL for tiled depthwise kernels
 * whose tiles are guarded; right on PoCL 3.1 and CUDA).
 */
final class UnguardedPrivateInit extends StmtMutator {
  private final Map<Buffer, Long> privateSizes = new HashMap<>();

  private UnguardedPrivateInit(Stmt body) {
    new StmtVisitor() {
      @Override
      public void visit(Stmt s) {
        if (s instanceof Allocate a
            && a.buffer().scope() == MemoryScope.LOCAL
            && a.size() instanceof IntImm n) {
          privateSizes.put(a.buffer(), n.value());
        }
        super.visit(s);
      }
    }.visit(body);
  }

  static Stmt apply(Stmt body) {
    return new UnguardedPrivateInit(body).mutate(body);
  }

  @Override
  public Stmt mutate(Stmt s) {
    if (s instanceof IfThenElse i
        && i.elseCase() == null
        && onlyConstantPrivateStores(i.thenCase(), new HashMap<>())) {
      return i.thenCase();
    }
    return mutateStmtChildren(s);
  }

  private boolean onlyConstantPrivateStores(Stmt s, Map<Var, ConstIntBound> loops) {
    return switch (s) {
      case Store st -> {
        Long size = privateSizes.get(st.buffer());
        if (size == null || !(st.value() instanceof FloatImm || st.value() instanceof IntImm)) {
          yield false;
        }
        ConstIntBound b = Simplifier.bound(st.index(), loops);
        yield b.min() >= 0 && b.max() < size;
      }
      case Seq q -> q.stmts().stream().allMatch(x -> onlyConstantPrivateStores(x, loops));
      case For f when f.min() instanceof IntImm m && f.extent() instanceof IntImm e -> {
        Map<Var, ConstIntBound> inner = new HashMap<>(loops);
        inner.put(f.loopVar(), ConstIntBound.range(m.value(), e.value()));
        yield e.value() > 0 && onlyConstantPrivateStores(f.body(), inner);
      }
      default -> false;
    };
  }
}
