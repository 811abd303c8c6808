package dev.kernelgen.codegen;

import dev.kernelgen.diag.CompilerBug;
import dev.kernelgen.te.BinOp;
import dev.kernelgen.te.Buffer;
import dev.kernelgen.te.DType;
import dev.kernelgen.te.Expr;
import dev.kernelgen.te.Intrinsic;
import dev.kernelgen.te.MemoryScope;
import dev.kernelgen.tir.Allocate;
import dev.kernelgen.tir.Barrier;
import dev.kernelgen.tir.For;
import dev.kernelgen.tir.PrimFunc;
import dev.kernelgen.tir.Stmt;
import dev.kernelgen.tir.StmtVisitor;
import java.util.ArrayList;
import java.util.List;

/**
 * Prints lowered functions as one OpenCL C 1.2 program of {@code __kernel}s. {@code blockIdx.x} is
 * {@code get_group_id(0)}, {@code threadIdx.x} is {@code get_local_id(0)}; the global work size is
 * grid times block of the {@link LaunchGeometry}. OpenCL C wants {@code __local} arrays declared at
 * kernel scope, so shared allocations are hoisted to the top of the kernel. Bool buffers are stored
 * as {@code uchar}, since kernel arguments cannot point to bool.
 */
public final class OpenClCodegen extends GpuPrinter {
  private boolean usesFloat64;

  private OpenClCodegen() {}

  /** The OpenCL C source of a program holding {@code funcs}. */
  public static String generate(List<PrimFunc> funcs, String moduleName) {
    OpenClCodegen g = new OpenClCodegen();
    g.printAll(funcs);
    return "// kernelgen module "
        + moduleName
        + ": generated OpenCL C, do not edit.\n"
        + (g.usesFloat64 ? "#pragma OPENCL EXTENSION cl_khr_fp64 : enable\n" : "")
        + "\n"
        + g.helpersText()
        + g.functionsText();
  }

  @Override
  void kernel(PrimFunc f) {
    String params =
        paramList(
            b ->
                "__global "
                    + (isStored(b) ? "" : "const ")
                    + elementType(b.dtype())
                    + "* restrict "
                    + name(b),
            v -> typeName(v.dtype()) + " " + name(v));
    line("__kernel void " + f.name() + "(" + params + ") {");
    indent();
    boolean barriers = !sharedAllocations(f.body()).isEmpty();
    for (Allocate a : sharedAllocations(f.body())) {
      long size = requireConstantSize(a);
      String n = names.bind(a.buffer(), a.buffer().name());
      line("__local " + elementType(a.buffer().dtype()) + " " + n + "[" + size + "];");
    }
    stmt(barriers ? UnguardedPrivateInit.apply(f.body()) : f.body());
    dedent();
    line("}");
  }

  private static List<Allocate> sharedAllocations(Stmt body) {
    List<Allocate> out = new ArrayList<>();
    new StmtVisitor() {
      @Override
      public void visit(Stmt s) {
        if (s instanceof Allocate a && a.buffer().scope() == MemoryScope.SHARED) {
          out.add(a);
        }
        super.visit(s);
      }
    }.visit(body);
    return out;
  }

  @Override
  boolean hoistsShared() {
    return true;
  }

  @Override
  String statusPointer() {
    return "__global int*";
  }

  @Override
  String sharedQualifier() {
    return "__local";
  }

  @Override
  String threadIndex(String tag) {
    return switch (tag) {
      case "blockIdx.x" -> "(int)get_group_id(0)";
      case "blockIdx.y" -> "(int)get_group_id(1)";
      case "blockIdx.z" -> "(int)get_group_id(2)";
      case "threadIdx.x" -> "(int)get_local_id(0)";
      case "threadIdx.y" -> "(int)get_local_id(1)";
      case "threadIdx.z" -> "(int)get_local_id(2)";
      default -> throw new CompilerBug("not a GPU thread index: " + tag);
    };
  }

  @Override
  String unrollPragma(For f) {
    return "#pragma unroll";
  }

  @Override
  String typeName(DType t) {
    return switch (t) {
      case BOOL -> "bool";
      case INT32 -> "int";
      case INT64 -> "long";
      case FLOAT32 -> "float";
      case FLOAT64 -> {
        usesFloat64 = true;
        yield "double";
      }
    };
  }

  @Override
  String elementType(DType t) {
    return t == DType.BOOL ? "uchar" : typeName(t);
  }

  @Override
  String load(Buffer b, Expr index) {
    String l = super.load(b, index);
    return b.dtype() == DType.BOOL ? "(" + l + " != 0)" : l;
  }

  @Override
  String store(Buffer b, Expr index, String value) {
    return super.store(b, index, b.dtype() == DType.BOOL ? "(uchar)(" + value + ")" : value);
  }

  @Override
  String int64Literal(long v) {
    return v == Long.MIN_VALUE ? "-9223372036854775807L - 1" : v + "L";
  }

  @Override
  String infinity(DType t) {
    return t == DType.FLOAT32 ? "INFINITY" : "(" + typeName(t) + ")INFINITY";
  }

  @Override
  String nan(DType t) {
    return t == DType.FLOAT32 ? "NAN" : "(" + typeName(t) + ")NAN";
  }

  @Override
  String helperQualifiers() {
    return "static inline";
  }

  @Override
  String intrinsic(Intrinsic fn, DType t, List<String> args) {
    typeName(t);
    return fn.cName() + "(" + String.join(", ", args) + ")";
  }

  @Override
  String minMax(BinOp op, DType t, String a, String b) {
    String f = op == BinOp.MIN ? "min" : "max";
    return (t.isFloat() ? "f" + f : f) + "(" + a + ", " + b + ")";
  }

  @Override
  void barrier(Barrier b) {
    line(
        b.scope() == MemoryScope.GLOBAL
            ? "barrier(CLK_LOCAL_MEM_FENCE | CLK_GLOBAL_MEM_FENCE);"
            : "barrier(CLK_LOCAL_MEM_FENCE);");
  }
}
