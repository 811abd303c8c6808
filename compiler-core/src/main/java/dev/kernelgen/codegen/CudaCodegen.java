package dev.kernelgen.codegen;

import dev.kernelgen.diag.CompilerBug;
import dev.kernelgen.te.BinOp;
import dev.kernelgen.te.Buffer;
import dev.kernelgen.te.DType;
import dev.kernelgen.te.Intrinsic;
import dev.kernelgen.te.Load;
import dev.kernelgen.tir.Barrier;
import dev.kernelgen.tir.For;
import dev.kernelgen.tir.PrimFunc;
import dev.kernelgen.tir.Stmt;
import dev.kernelgen.tir.Store;
import java.util.List;
import java.util.OptionalLong;

/**
 * Prints lowered functions as one CUDA C++ source file of {@code extern "C" __global__} kernels,
 * for nvcc (see {@link NativeToolchain#compilePtx}). A loop bound to {@code blockIdx.x} becomes
 * {@code const int bx = (int)blockIdx.x;}, guarded where it is shorter than the launch extent (see
 * {@link LaunchGeometry}); shared allocations become {@code __shared__} arrays aligned to 16 bytes
 * and barriers {@code __syncthreads()}. The alignment lets nvcc merge a thread's reads of 4
 * consecutive words at an index it knows is a multiple of 4 into one 128-bit load (a register
 * tile's row of a staged matmul tile: 4 instead of 16 shared loads per reduction step at 8 x 8
 * registers, 617 -> 543 us at 2048^3 on the H200).
 */
public final class CudaCodegen extends GpuPrinter {
  private CudaCodegen() {}

  /** The CUDA source of a module holding {@code funcs}. */
  public static String generate(List<PrimFunc> funcs, String moduleName) {
    CudaCodegen g = new CudaCodegen();
    g.printAll(funcs);
    return "// kernelgen module "
        + moduleName
        + ": generated CUDA, do not edit.\n\n"
        + g.helpersText()
        + g.functionsText();
  }

  @Override
  void kernel(PrimFunc f) {
    String params =
        paramList(
            b ->
                (isStored(b) ? "" : "const ")
                    + elementType(b.dtype())
                    + "* __restrict__ "
                    + name(b),
            v -> typeName(v.dtype()) + " " + name(v));
    OptionalLong threads = geometry.threadsPerBlock();
    String bounds = threads.isPresent() ? "__launch_bounds__(" + threads.getAsLong() + ") " : "";
    line("extern \"C\" __global__ void " + bounds + f.name() + "(" + params + ") {");
    indent();
    // Every buffer the runtime passes is a whole cuMemAlloc allocation (256-byte aligned): said
    // here, nvcc merges a thread's loads or stores of 4 consecutive elements at an index it knows
    // is a multiple of 4 into one 128-bit access (the generated GPU tiling's fetches).
    for (Buffer b : f.params()) {
      String ty = (isStored(b) ? "" : "const ") + elementType(b.dtype()) + "*";
      line(name(b) + " = (" + ty + ")__builtin_assume_aligned(" + name(b) + ", 16);");
    }
    stmt(f.body());
    dedent();
    line("}");
  }

  @Override
  void seq(List<Stmt> stmts) {
    for (int i = 0; i < stmts.size(); ) {
      if (!VectorLoads.groupAt(stmts, i, func)) {
        stmt(stmts.get(i++));
        continue;
      }
      line("{");
      indent();
      Load first = (Load) ((Store) stmts.get(i)).value();
      line("const float4 kg_v = *(const float4*)&" + expr(first, true) + ";");
      String lanes = "xyzw";
      for (int j = 0; j < VectorLoads.WIDTH; j++) {
        Store st = (Store) stmts.get(i + j);
        line(store(st.buffer(), st.index(), "kg_v." + lanes.charAt(j)));
      }
      dedent();
      line("}");
      i += VectorLoads.WIDTH;
    }
  }

  @Override
  String threadIndex(String tag) {
    return switch (tag) {
      case "blockIdx.x", "blockIdx.y", "blockIdx.z", "threadIdx.x", "threadIdx.y", "threadIdx.z" ->
          "(int)" + tag;
      default -> throw new CompilerBug("not a GPU thread index: " + tag);
    };
  }

  @Override
  String statusPointer() {
    return "int*";
  }

  @Override
  String sharedQualifier() {
    return "__shared__ __align__(16)";
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
      case INT64 -> "long long";
      case FLOAT32 -> "float";
      case FLOAT64 -> "double";
    };
  }

  @Override
  String int64Literal(long v) {
    return v == Long.MIN_VALUE ? "-9223372036854775807LL - 1" : v + "LL";
  }

  @Override
  String infinity(DType t) {
    return t == DType.FLOAT32
        ? "__int_as_float(0x7f800000)"
        : "__longlong_as_double(0x7ff0000000000000LL)";
  }

  @Override
  String nan(DType t) {
    return t == DType.FLOAT32
        ? "__int_as_float(0x7fc00000)"
        : "__longlong_as_double(0x7ff8000000000000LL)";
  }

  @Override
  String helperQualifiers() {
    return "__device__ __forceinline__";
  }

  @Override
  String intrinsic(Intrinsic fn, DType t, List<String> args) {
    return cMathName(fn, t) + "(" + String.join(", ", args) + ")";
  }

  @Override
  String minMax(BinOp op, DType t, String a, String b) {
    String f = op == BinOp.MIN ? "min" : "max";
    if (t.isFloat()) {
      f = "f" + f + (t == DType.FLOAT32 ? "f" : "");
    }
    return f + "(" + a + ", " + b + ")";
  }

  @Override
  void barrier(Barrier b) {
    line(b.isWarp() ? "__syncwarp();" : "__syncthreads();");
  }
}
