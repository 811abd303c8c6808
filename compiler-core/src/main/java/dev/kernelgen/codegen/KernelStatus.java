package dev.kernelgen.codegen;

import dev.kernelgen.te.BinOp;
import dev.kernelgen.te.Binary;
import dev.kernelgen.te.Buffer;
import dev.kernelgen.te.DType;
import dev.kernelgen.te.Expr;
import dev.kernelgen.te.FreeVars;
import dev.kernelgen.te.IntImm;
import dev.kernelgen.te.MemoryScope;
import dev.kernelgen.te.Var;
import dev.kernelgen.tir.PrimFunc;
import dev.kernelgen.tir.Stmt;
import dev.kernelgen.tir.StmtVisitor;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

/**
 * A GPU kernel's status word: one int in global memory, its last buffer, {@value #STATUS}, which
 * the launch passes as a temporary that the launcher's workspace keeps zeroed, and reads after the
 * kernels (a C function returns its status instead). Kernels that may meet bad data take one: a
 * gather whose index may leave its tensor ({@link CheckedGather}) stores {@value #GATHER}, an
 * integer division or modulo by a value read from memory that is 0 stores {@value #DIVISION}
 * (undefined in OpenCL C and CUDA: PoCL gave a value without a word) and gives 0.
 */
public final class KernelStatus {
  private KernelStatus() {}

  /** The name of a GPU kernel's status buffer, and of the launch's temporary it receives. */
  public static final String STATUS = "kg_status";

  /** The status of an index read from a tensor outside the tensor it indexes. */
  public static final int GATHER = 1;

  /** The status of an integer division or modulo by zero (a divisor read from a tensor). */
  public static final int DIVISION = 2;

  /** The status buffer of a GPU kernel that checks (its last buffer), else null. */
  static Buffer status(PrimFunc f) {
    if (f.params().isEmpty()) {
      return null;
    }
    Buffer last = f.params().get(f.params().size() - 1);
    return isStatus(last) ? last : null;
  }

  /** Whether {@code b} is a status buffer ({@link #statusBuffer}). */
  public static boolean isStatus(Buffer b) {
    return b.name().equals(STATUS)
        && b.dtype() == DType.INT32
        && b.shape().size() == 1
        && b.shape().get(0) instanceof IntImm one
        && one.value() == 1;
  }

  /** A new status buffer: one int in global memory. */
  public static Buffer statusBuffer() {
    return new Buffer(STATUS, DType.INT32, MemoryScope.GLOBAL, List.of(IntImm.of(1)));
  }

  /**
   * The GPU kernel {@code f} with {@code status} as its last buffer, and the dims its gather checks
   * need (the indexed tensors' sizes) among its scalars, where it gathers at an index that needs a
   * check or divides integers by a value read from memory; else {@code f} itself.
   */
  public static PrimFunc withStatus(PrimFunc f, Buffer status) {
    List<Buffer> checked = CheckedGather.checkedBuffers(f.body());
    if (checked.isEmpty() && !dividesByData(f.body())) {
      return f;
    }
    List<Buffer> params = new ArrayList<>(f.params());
    params.add(status);
    Set<Var> scalars = new LinkedHashSet<>(f.scalars());
    for (Buffer b : checked) {
      scalars.addAll(FreeVars.of(CheckedGather.elements(b)));
    }
    return new PrimFunc(f.name(), params, List.copyOf(scalars), f.body());
  }

  /** Whether {@code b} divides integers by a value read from memory (see {@link #withStatus}). */
  static boolean isDataDivision(Binary b) {
    return (b.op() == BinOp.FLOOR_DIV || b.op() == BinOp.FLOOR_MOD)
        && !b.a().dtype().isFloat()
        && CLikeExprPrinter.readsMemory(b.b());
  }

  private static boolean dividesByData(Stmt body) {
    boolean[] found = {false};
    new StmtVisitor() {
      @Override
      public void visit(Expr e) {
        found[0] |= e instanceof Binary b && isDataDivision(b);
        super.visit(e);
      }
    }.visit(body);
    return found[0];
  }
}
