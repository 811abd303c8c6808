package dev.kernelgen.codegen;

import dev.kernelgen.diag.UserError;
import dev.kernelgen.te.BinOp;
import dev.kernelgen.te.Buffer;
import dev.kernelgen.te.DType;
import dev.kernelgen.te.Expr;
import dev.kernelgen.te.IntImm;
import dev.kernelgen.te.MemoryScope;
import dev.kernelgen.tir.Allocate;
import dev.kernelgen.tir.For;
import dev.kernelgen.tir.ForKind;
import dev.kernelgen.tir.PrimFunc;
import java.util.ArrayList;
import java.util.List;

/**
 * What CUDA and OpenCL share: a loop bound to a thread index is the index itself, guarded when the
 * loop is shorter than the launch extent of its tag, and allocations are shared or private arrays
 * of constant size.
 */
abstract class GpuPrinter extends CLikePrinter {
  LaunchGeometry geometry;

  /** The index of the current block or thread for a tag, as an int expression. */
  abstract String threadIndex(String tag);

  /** The qualifier of shared arrays ({@code __shared__}, {@code __local}). */
  abstract String sharedQualifier();

  /** The pragma that asks to unroll a loop. */
  abstract String unrollPragma(For f);

  /** The type of a pointer to the status buffer in a helper's parameters. */
  abstract String statusPointer();

  /**
   * An integer division or modulo by a value read from memory, in a kernel that takes a status
   * buffer, is checked ({@link CheckedDivision}): by zero it gives 0 and the status becomes {@value
   * KernelStatus#DIVISION}; by -1 it negates (the minimum integer divided by -1 may trap on x86,
   * PoCL's CPU device).
   */
  @Override
  String dataDivMod(BinOp op, DType t, String a, String b) {
    Buffer status = KernelStatus.status(func);
    if (status == null || t.isFloat()) {
      return super.dataDivMod(op, t, a, b);
    }
    String plain = floorDivModHelper(op, t);
    String name = plain + "_checked";
    String def =
        CheckedDivision.gpuDefinition(
            name,
            helperQualifiers(),
            typeName(t),
            statusPointer(),
            op == BinOp.FLOOR_DIV,
            plain + "(a, b)");
    return helper(name, def) + "(" + a + ", " + b + ", " + name(status) + ")";
  }

  /**
   * A read at an index computed from values read from memory, in a kernel that takes a status
   * buffer ({@link KernelStatus#withStatus}), is checked: outside the tensor, element 0 is read and
   * the status becomes 1.
   */
  @Override
  String load(Buffer b, Expr index) {
    Buffer status = KernelStatus.status(func);
    if (status == null || selectDepth > 0 || !CheckedGather.needsCheck(b, index, loopRanges)) {
      return super.load(b, index);
    }
    String i64 = typeName(DType.INT64);
    String check =
        helper(
            CheckedGather.NAME,
            CheckedGather.gpuDefinition(helperQualifiers(), i64, statusPointer()));
    return name(b)
        + "["
        + check
        + "(("
        + i64
        + ") "
        + expr(index, false)
        + ", ("
        + i64
        + ") "
        + expr(CheckedGather.elements(b), false)
        + ", "
        + name(status)
        + ")]";
  }

  @Override
  final void function(PrimFunc f) {
    geometry = LaunchGeometry.of(f);
    bindParams(f);
    kernel(f);
  }

  /** Prints the kernel: signature, body, closing brace. */
  abstract void kernel(PrimFunc f);

  @Override
  final void forLoop(For f) {
    if (f.kind() == ForKind.THREAD_BINDING) {
      String lo = expr(f.min(), true);
      String hi = loopEnd(f);
      String idx = threadIndex(f.threadTag());
      if (f.loopVar().dtype() == DType.INT64) {
        idx = "((" + typeName(DType.INT64) + ")" + idx + ")";
      }
      String value = f.min() instanceof IntImm m && m.value() == 0 ? idx : lo + " + " + idx;
      String prev = names.current(f.loopVar());
      String v = names.bind(f.loopVar(), f.loopVar().name());
      line(letDecl(f.loopVar().dtype(), v, value));
      if (geometry.needsGuard(f)) {
        line("if (" + v + " < " + hi + ") {");
        indent();
        loopBody(f);
        dedent();
        line("}");
      } else {
        loopBody(f);
      }
      names.restore(f.loopVar(), prev);
      return;
    }
    List<String> pragmas = new ArrayList<>();
    if (f.kind() == ForKind.UNROLLED) {
      pragmas.add(unrollPragma(f));
    }
    pragmas.addAll(userPragmas(f));
    // Parallel and vectorized loops have no meaning inside one GPU thread; virtual threads that
    // the virtual-thread pass left behind run serially.
    serialFor(f, pragmas);
  }

  /** The constant size of a GPU allocation, else a user error naming the buffer. */
  final long requireConstantSize(Allocate a) {
    UserError.check(
        a.size() instanceof IntImm,
        "buffer %s (%s) in kernel %s has size %s, which is not a constant: shared and"
            + " thread-local arrays of a GPU kernel need a size known at compile time",
        a.buffer().name(),
        a.buffer().scope(),
        func.name(),
        a.size().show());
    return Math.max(1, ((IntImm) a.size()).value());
  }

  @Override
  final void allocate(Allocate a) {
    MemoryScope scope = a.buffer().scope();
    UserError.check(
        scope != MemoryScope.GLOBAL || threadLoops > 0,
        "buffer %s of kernel %s is allocated in global memory outside of the thread loops: a"
            + " GPU kernel cannot allocate global memory; give it scope shared or local, or"
            + " compute it in a kernel of its own",
        a.buffer().name(),
        func.name());
    long size = requireConstantSize(a);
    if (scope == MemoryScope.SHARED && hoistsShared()) {
      stmt(a.body());
      return;
    }
    String prev = names.current(a.buffer());
    String n = names.bind(a.buffer(), a.buffer().name());
    String ty = elementType(a.buffer().dtype());
    if (scope == MemoryScope.SHARED) {
      line(sharedQualifier() + " " + ty + " " + n + "[" + size + "];");
    } else {
      // Local, or global inside a thread: one private array per thread.
      line(ty + " " + n + "[" + size + "];");
    }
    stmt(a.body());
    names.restore(a.buffer(), prev);
  }

  /**
   * Whether shared arrays are declared at the top of the kernel (bound before the body), rather
   * than where they are allocated.
   */
  boolean hoistsShared() {
    return false;
  }
}
