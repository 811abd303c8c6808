package dev.kernelgen.lower;

import dev.kernelgen.diag.UserError;
import dev.kernelgen.te.Buffer;
import dev.kernelgen.te.Expr;
import dev.kernelgen.te.Load;
import dev.kernelgen.te.MemoryScope;
import dev.kernelgen.tir.Allocate;
import dev.kernelgen.tir.For;
import dev.kernelgen.tir.ForKind;
import dev.kernelgen.tir.PrimFunc;
import dev.kernelgen.tir.Seq;
import dev.kernelgen.tir.Stmt;
import dev.kernelgen.tir.StmtVisitor;
import dev.kernelgen.tir.Store;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

/**
 * Splits a function lowered for a GPU into what the host does and the kernels the device runs:
 * tensors computed at root between stages become temporaries that the host allocates in device
 * memory, and each root stage's loop nest becomes one kernel, launched in order. Every kernel's
 * parameters are the function's buffers (arguments, then temporaries) and its symbolic dims, so
 * that all kernels of an operator share one calling convention.
 */
public final class SplitHostDevice {
  private SplitHostDevice() {}

  /** The kernels of one operator and the device memory the host provides for them. */
  public record DeviceModule(
      List<Buffer> args,
      List<Buffer> temporaries,
      List<Expr> temporarySizes,
      List<PrimFunc> kernels) {}

  public static DeviceModule split(PrimFunc f) {
    List<Buffer> temps = new ArrayList<>();
    List<Expr> sizes = new ArrayList<>();
    List<Stmt> parts = new ArrayList<>();
    collect(f.body(), temps, sizes, parts);
    List<Buffer> params = new ArrayList<>(f.params());
    params.addAll(temps);
    List<PrimFunc> kernels = new ArrayList<>();
    for (int k = 0; k < parts.size(); k++) {
      Stmt part = parts.get(k);
      checkBound(part, f.name());
      String name = parts.size() == 1 ? f.name() : f.name() + "_k" + k;
      kernels.add(new PrimFunc(name, params, f.scalars(), part));
    }
    return new DeviceModule(f.params(), temps, sizes, kernels);
  }

  /**
   * The kernels of {@code s}, in order, and the temporaries around them: the temporaries of a chain
   * of root stages nest ({@code allocate Y {[kernel of Y, allocate Z {[kernel of Z, ...]}]}}), so
   * every global allocation between kernels is hoisted, not only the outermost ones.
   */
  private static void collect(Stmt s, List<Buffer> temps, List<Expr> sizes, List<Stmt> parts) {
    if (s instanceof Allocate a && a.buffer().scope() == MemoryScope.GLOBAL) {
      temps.add(a.buffer());
      sizes.add(a.size());
      collect(a.body(), temps, sizes, parts);
    } else if (s instanceof Seq q) {
      for (Stmt st : q.stmts()) {
        collect(st, temps, sizes, parts);
      }
    } else {
      parts.add(s);
    }
  }

  /** A kernel must run on more than one thread: its outer loops are bound to the grid. */
  private static void checkBound(Stmt part, String fn) {
    boolean[] bound = {false};
    Set<String> written = new LinkedHashSet<>();
    new StmtVisitor() {
      @Override
      public void visit(Stmt s) {
        if (s instanceof For f && f.kind() == ForKind.THREAD_BINDING) {
          bound[0] = true;
        }
        if (s instanceof Store st && st.buffer().scope() == MemoryScope.GLOBAL) {
          written.add(st.buffer().name());
        }
        super.visit(s);
      }

      @Override
      public void visit(Expr e) {
        if (e instanceof Load) {
          return;
        }
        super.visit(e);
      }
    }.visit(part);
    UserError.check(
        bound[0],
        "operator '%s' on a GPU target: the stage writing %s has no loop bound to blockIdx or"
            + " threadIdx, so it would run on a single GPU thread; bind its outer loops"
            + " (for example fuse them, split, and bind to blockIdx.x and threadIdx.x)",
        fn,
        written);
  }
}
