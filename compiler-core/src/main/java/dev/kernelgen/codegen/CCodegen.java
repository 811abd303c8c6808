package dev.kernelgen.codegen;

import dev.kernelgen.diag.UserError;
import dev.kernelgen.te.BinOp;
import dev.kernelgen.te.DType;
import dev.kernelgen.te.IntImm;
import dev.kernelgen.te.Intrinsic;
import dev.kernelgen.tir.Allocate;
import dev.kernelgen.tir.Barrier;
import dev.kernelgen.tir.For;
import dev.kernelgen.tir.PrimFunc;
import java.util.ArrayList;
import java.util.List;
import java.util.OptionalLong;

/**
 * Prints lowered functions as one C11 source file, compiled with OpenMP into a shared library (see
 * {@link NativeToolchain#compileSharedLibrary}). Each function is exported as {@code void
 * NAME(float* restrict A, const float* restrict B, ..., int32_t n)}: buffers in the function's
 * order, {@code const} where never stored, then the symbolic dims.
 *
 * <p>Parallel loops become {@code #pragma omp parallel for}, vectorized ones {@code #pragma omp
 * simd}, unrolled ones {@code #pragma GCC unroll}. Thread-bound loops run serially.
 */
public final class CCodegen extends CLikePrinter {
  /** Allocations up to this size with a constant size live on the stack. */
  static final long MAX_STACK_BYTES = 64 * 1024;

  private CCodegen() {}

  /** The C source of a module holding {@code funcs}. */
  public static String generate(List<PrimFunc> funcs, String moduleName) {
    CCodegen g = new CCodegen();
    g.printAll(funcs);
    return "// kernelgen module "
        + moduleName
        + ": generated C, do not edit.\n"
        + "#include <math.h>\n"
        + "#include <stdbool.h>\n"
        + "#include <stdint.h>\n"
        + "#include <stdlib.h>\n"
        + "\n"
        + g.helpersText()
        + g.functionsText();
  }

  @Override
  void function(PrimFunc f) {
    bindParams(f);
    String params =
        paramList(
            b -> (isStored(b) ? "" : "const ") + elementType(b.dtype()) + "* restrict " + name(b),
            v -> typeName(v.dtype()) + " " + name(v));
    line("__attribute__((visibility(\"default\"))) void " + f.name() + "(" + params + ") {");
    indent();
    stmt(f.body());
    dedent();
    line("}");
  }

  @Override
  String typeName(DType t) {
    return switch (t) {
      case BOOL -> "bool";
      case INT32 -> "int32_t";
      case INT64 -> "int64_t";
      case FLOAT32 -> "float";
      case FLOAT64 -> "double";
    };
  }

  @Override
  String int64Literal(long v) {
    if (v == Long.MIN_VALUE) {
      return "(int64_t)(-9223372036854775807LL - 1)";
    }
    return "(int64_t)" + v + (v == (int) v ? "" : "LL");
  }

  @Override
  String infinity(DType t) {
    return t == DType.FLOAT32 ? "INFINITY" : "(double)INFINITY";
  }

  @Override
  String nan(DType t) {
    return t == DType.FLOAT32 ? "NAN" : "(double)NAN";
  }

  @Override
  String helperQualifiers() {
    return "static inline";
  }

  @Override
  String intrinsic(Intrinsic fn, DType t, List<String> args) {
    return cMathName(fn, t) + "(" + String.join(", ", args) + ")";
  }

  @Override
  String minMax(BinOp op, DType t, String a, String b) {
    // A helper, not a macro, so that each operand is evaluated once; for floats a comparison
    // rather than libm's fmaxf, which is a call that stops the loop from being vectorized (the
    // comparison compiles to maxps; it returns the second operand when either is NaN).
    String ty = typeName(t);
    String suffix =
        switch (t) {
          case INT64 -> "i64";
          case FLOAT32 -> "f32";
          case FLOAT64 -> "f64";
          default -> "i32";
        };
    String name = (op == BinOp.MIN ? "kg_min_" : "kg_max_") + suffix;
    String cmp = op == BinOp.MIN ? "<" : ">";
    return helper(
            name,
            "static inline "
                + ty
                + " "
                + name
                + "("
                + ty
                + " a, "
                + ty
                + " b) {\n  return a "
                + cmp
                + " b ? a : b;\n}\n")
        + "("
        + a
        + ", "
        + b
        + ")";
  }

  @Override
  void forLoop(For f) {
    List<String> pragmas = new ArrayList<>();
    switch (f.kind()) {
      case PARALLEL -> pragmas.add("#pragma omp parallel for");
      case VECTORIZED -> pragmas.add("#pragma omp simd");
      case UNROLLED -> {
        if (f.extent() instanceof IntImm e) {
          pragmas.add("#pragma GCC unroll " + Math.min(e.value(), 65534));
        }
      }
      // GPU-scheduled IR runs with its thread-bound loops one after the other.
      case SERIAL, THREAD_BINDING, VTHREAD -> {}
    }
    // A loop takes one pragma in C: OpenMP's and GCC's each must stand directly before it.
    UserError.check(
        pragmas.isEmpty() || f.pragmas().isEmpty(),
        "loop '%s' in %s is %s and also has pragma %s: in C a loop takes one pragma, so drop"
            + " the pragma or the %s annotation",
        f.loopVar().name(),
        func.name(),
        f.kind().keyword(),
        f.pragmas(),
        f.kind().keyword());
    pragmas.addAll(userPragmas(f));
    serialFor(f, pragmas);
  }

  @Override
  void allocate(Allocate a) {
    String prev = names.current(a.buffer());
    String n = names.bind(a.buffer(), a.buffer().name());
    String ty = elementType(a.buffer().dtype());
    OptionalLong size = constantSize(a);
    boolean heap =
        size.isEmpty() || size.getAsLong() * a.buffer().dtype().bytes() > MAX_STACK_BYTES;
    if (!heap) {
      line(ty + " " + n + "[" + Math.max(1, size.getAsLong()) + "];");
      stmt(a.body());
    } else {
      String alloc =
          helper(
              "kg_alloc",
              "static void* kg_alloc(size_t bytes) {\n"
                  + "  // aligned_alloc wants a multiple of the alignment; NULL would crash later.\n"
                  + "  void* p = aligned_alloc(64, bytes == 0 ? 64 : (bytes + 63) / 64 * 64);\n"
                  + "  if (p == NULL) {\n"
                  + "    abort();\n"
                  + "  }\n"
                  + "  return p;\n"
                  + "}\n");
      line(
          ty
              + "* "
              + n
              + " = ("
              + ty
              + "*)"
              + alloc
              + "((size_t)"
              + expr(a.size(), false)
              + " * "
              + a.buffer().dtype().bytes()
              + ");");
      stmt(a.body());
      line("free(" + n + ");");
    }
    names.restore(a.buffer(), prev);
  }

  @Override
  void barrier(Barrier b) {
    serialBarrier(b, "C");
  }
}
