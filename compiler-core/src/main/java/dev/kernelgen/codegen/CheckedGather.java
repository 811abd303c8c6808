package dev.kernelgen.codegen;

import dev.kernelgen.arith.ConstIntBound;
import dev.kernelgen.arith.Simplifier;
import dev.kernelgen.te.Buffer;
import dev.kernelgen.te.DType;
import dev.kernelgen.te.Expr;
import dev.kernelgen.te.IntImm;
import dev.kernelgen.te.Load;
import dev.kernelgen.te.Select;
import dev.kernelgen.te.Var;
import dev.kernelgen.tir.For;
import dev.kernelgen.tir.Stmt;
import dev.kernelgen.tir.StmtVisitor;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The kernels' check of an index computed from values read from memory (a gather through an index
 * tensor, which may hold anything whatever the shapes): outside the tensor it indexes, element 0 is
 * read instead of memory past the buffer (a crash of the JVM on C and on OpenCL's CPU devices, a
 * dead context on CUDA) and a status is set, which the runtime turns into an exception naming the
 * kernel or operator. C functions return theirs (-2); a GPU kernel sets its status word ({@link
 * KernelStatus}) to {@value KernelStatus#GATHER}. Not checked: reads whose index stays inside for
 * any values read (a {@code floormod} by the row's length over loops of constant ranges), nor reads
 * inside a select's branch (the user's guard, as {@code schedule.ReadBounds} assumes).
 */
public final class CheckedGather {
  private CheckedGather() {}

  static final String NAME = "kg_index_checked";

  /** C's check: the function's status becomes -2. */
  static final String DEFINITION =
      definition(
          "static inline",
          "int64_t",
          "uint64_t",
          "int64_t*",
          "__atomic_store_n(status, -2, __ATOMIC_RELAXED)");

  /**
   * A GPU check, given the qualifiers of a helper, the 64-bit integer type and the status pointer's
   * type: every thread that finds its index outside stores the same {@value KernelStatus#GATHER},
   * so the race is harmless.
   */
  static String gpuDefinition(String qualifiers, String int64, String statusPointer) {
    return definition(
        qualifiers, int64, "unsigned " + int64, statusPointer, "*status = " + KernelStatus.GATHER);
  }

  private static String definition(
      String qualifiers, String int64, String unsigned64, String statusPointer, String setStatus) {
    return ("%1$s %2$s kg_index_checked(%2$s i, %2$s n, %4$s status) {\n"
            + "  if ((%3$s) i >= (%3$s) n) {\n"
            + "    %5$s;\n"
            + "    return 0;\n"
            + "  }\n"
            + "  return i;\n"
            + "}\n")
        .formatted(qualifiers, int64, unsigned64, statusPointer, setStatus);
  }

  /**
   * Whether a read of {@code b} at {@code index}, outside any select's branch, is checked: its
   * index reads memory and, over {@code loopRanges} (the constant ranges of the loops around it),
   * is not known to stay inside {@code b}.
   */
  static boolean needsCheck(Buffer b, Expr index, Map<Var, ConstIntBound> loopRanges) {
    if (b.shape().isEmpty() || !CLikeExprPrinter.readsMemory(index)) {
      return false;
    }
    if (b.shape().stream().allMatch(d -> d instanceof IntImm)) {
      long n = ((IntImm) elements(b)).value();
      ConstIntBound range = Simplifier.bound(index, loopRanges);
      return range.min() < 0 || range.max() >= n;
    }
    return true;
  }

  /** The number of elements of {@code b}: the product of its shape, in 64 bits. */
  static Expr elements(Buffer b) {
    if (b.shape().stream().allMatch(d -> d instanceof IntImm)) {
      long n = 1;
      for (Expr d : b.shape()) {
        n = Math.multiplyExact(n, ((IntImm) d).value());
      }
      return IntImm.of(n);
    }
    // In 64 bits: the product of 32-bit dims may pass 2^31.
    Expr size = null;
    for (Expr d : b.shape()) {
      Expr wide = d.dtype() == DType.INT64 ? d : dev.kernelgen.te.TE.cast(DType.INT64, d);
      size = size == null ? wide : size.mul(wide);
    }
    return size;
  }

  /**
   * The buffers read at an index that needs a check, walking as the printers do: loops of constant
   * range bound their variables, a select's branches are guarded.
   */
  static List<Buffer> checkedBuffers(Stmt body) {
    Set<Buffer> out = new LinkedHashSet<>();
    Map<Var, ConstIntBound> ranges = new HashMap<>();
    new StmtVisitor() {
      private int selectDepth;

      @Override
      public void visit(Stmt s) {
        if (s instanceof For f
            && f.min() instanceof IntImm lo
            && f.extent() instanceof IntImm n
            && n.value() > 0) {
          ranges.put(f.loopVar(), ConstIntBound.range(lo.value(), n.value()));
          super.visit(s);
          ranges.remove(f.loopVar());
          return;
        }
        if (s instanceof dev.kernelgen.tir.Evaluate) {
          return; // a prefetch hint (C only), never a read on GPUs
        }
        super.visit(s);
      }

      @Override
      public void visit(Expr e) {
        if (e instanceof Select sel) {
          visit(sel.cond());
          selectDepth++;
          visit(sel.trueValue());
          visit(sel.falseValue());
          selectDepth--;
          return;
        }
        if (e instanceof Load l && selectDepth == 0 && needsCheck(l.buffer(), l.index(), ranges)) {
          out.add(l.buffer());
        }
        super.visit(e);
      }
    }.visit(body);
    return new ArrayList<>(out);
  }
}
