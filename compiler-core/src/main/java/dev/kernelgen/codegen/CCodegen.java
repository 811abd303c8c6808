package dev.kernelgen.codegen;

import dev.kernelgen.diag.UserError;
import dev.kernelgen.te.BinOp;
import dev.kernelgen.te.Binary;
import dev.kernelgen.te.Buffer;
import dev.kernelgen.te.DType;
import dev.kernelgen.te.Expr;
import dev.kernelgen.te.IntImm;
import dev.kernelgen.te.Intrinsic;
import dev.kernelgen.te.Load;
import dev.kernelgen.te.Var;
import dev.kernelgen.tir.Accumulations;
import dev.kernelgen.tir.Allocate;
import dev.kernelgen.tir.Barrier;
import dev.kernelgen.tir.Evaluate;
import dev.kernelgen.tir.For;
import dev.kernelgen.tir.ForKind;
import dev.kernelgen.tir.PrimFunc;
import dev.kernelgen.tir.Store;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.OptionalLong;
import java.util.Set;

/**
 * Prints lowered functions as one C11 source file, compiled with OpenMP into a shared library (see
 * {@link NativeToolchain#compileSharedLibrary}). Each function is exported as {@code int64_t
 * NAME(float* restrict A, const float* restrict B, ..., int32_t n)}: buffers in the function's
 * order, {@code const} where never stored, then the symbolic dims. It returns 0, or the bytes of a
 * temporary it could not allocate (the body that needed it is skipped and what was allocated is
 * freed; the runtime throws, naming the kernel and the bytes): an allocation failure must not
 * {@code abort()} the JVM. The module exports {@value #STATUS_ABI_SYMBOL} to say its functions
 * return this status (hand-written C kernels return nothing).
 *
 * <p>Parallel loops become {@code #pragma omp parallel for}, vectorized ones {@code #pragma omp
 * simd}, unrolled ones {@code #pragma GCC unroll}. Thread-bound loops run serially. A vectorized
 * loop that writes a row of a large output is printed twice ({@link StreamingStores}): with
 * non-temporal stores where the ISA has them and the row is aligned, else as the plain loop.
 */
public final class CCodegen extends CLikePrinter {
  /** Allocations up to this size with a constant size live on the stack. */
  static final long MAX_STACK_BYTES = 64 * 1024;

  /** Exported by every module whose functions return an allocation status (see above). */
  public static final String STATUS_ABI_SYMBOL = "kernelgen_status_abi";

  /** The function's status: set (atomically, from any OpenMP thread) when an allocation fails. */
  private static final String STATUS = "kg_status_";

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
        + "__attribute__((visibility(\"default\"))) const int32_t "
        + STATUS_ABI_SYMBOL
        + " = 1;\n"
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
    line("__attribute__((visibility(\"default\"))) int64_t " + f.name() + "(" + params + ") {");
    indent();
    line("int64_t " + STATUS + " = 0;");
    stmt(f.body());
    line("return " + STATUS + ";");
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
  void evaluate(Evaluate e) {
    if (e.value() instanceof Load l) {
      // Read, keep in every cache level (gcc's __builtin_prefetch(addr, rw, locality)).
      line("__builtin_prefetch(&" + load(l.buffer(), l.index()) + ", 0, 3);");
    }
  }

  @Override
  String intrinsic(Intrinsic fn, DType t, List<String> args) {
    if ((fn == Intrinsic.EXP || fn == Intrinsic.TANH) && t == DType.FLOAT32) {
      String exp = helper("kg_exp_f32", FastExp.HELPER);
      String f = fn == Intrinsic.EXP ? exp : helper("kg_tanh_f32", FastTanh.HELPER);
      return f + "(" + args.get(0) + ")";
    }
    String name = cMathName(fn, t);
    if (fn == Intrinsic.EXP || fn == Intrinsic.LOG || fn == Intrinsic.POW) {
      // glibc's vector math library (libmvec, linked through -lm) has vector versions of these;
      // declared as OpenMP SIMD functions, a vectorized loop calls them rather than the scalar
      // function once per lane. Without OpenMP the pragma is ignored.
      String ty = typeName(t);
      String params = fn.arity() == 2 ? ty + ", " + ty : ty;
      helper(
          "kg_simd_" + name,
          "#if defined(__x86_64__) && (__GLIBC__ > 2 || (__GLIBC__ == 2 && __GLIBC_MINOR__ >= 22))\n"
              + "#pragma omp declare simd notinbranch\n"
              + ty
              + " "
              + name
              + "("
              + params
              + ");\n"
              + "#endif\n");
    }
    return name + "(" + String.join(", ", args) + ")";
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
    String def =
        "static inline %1$s %2$s(%1$s a, %1$s b) {\n  return a %3$s b ? a : b;\n}\n"
            .formatted(ty, name, cmp);
    return helper(name, def) + "(" + a + ", " + b + ")";
  }

  /**
   * A read at an index computed from values read from memory is checked ({@link CheckedGather}):
   * outside the tensor, the function's status becomes -2. The check's store keeps gcc from
   * vectorizing the loop around it (a hinge loss reading each row at its label's column: 842 ->
   * 4920 us), hence none where the index provably stays inside.
   */
  @Override
  String load(Buffer b, Expr index) {
    if (selectDepth > 0 || !CheckedGather.needsCheck(b, index, loopRanges)) {
      return super.load(b, index);
    }
    return name(b)
        + "["
        + helper(CheckedGather.NAME, CheckedGather.DEFINITION)
        + "((int64_t) "
        + expr(index, false)
        + ", (int64_t) "
        + expr(CheckedGather.elements(b), false)
        + ", &"
        + STATUS
        + ")]";
  }

  /** See {@link CheckedDivision}. */
  @Override
  String dataDivMod(BinOp op, DType t, String a, String b) {
    String plain = floorDivModHelper(op, t);
    String name = plain + "_checked";
    String def =
        CheckedDivision.definition(name, typeName(t), op == BinOp.FLOOR_DIV, plain + "(a, b)");
    return helper(name, def) + "(" + a + ", " + b + ", &" + STATUS + ")";
  }

  @Override
  void forLoop(For f) {
    TransposedCopies.Copy copy = TransposedCopies.of(f);
    if (copy != null) {
      transposedCopy(copy);
      return;
    }
    List<String> pragmas = new ArrayList<>();
    switch (f.kind()) {
      case PARALLEL -> pragmas.add("#pragma omp parallel for");
      case VECTORIZED -> {
        List<Store> accs = Accumulations.trailing(f);
        if (!accs.isEmpty() && f.pragmas().isEmpty()) {
          scalarAccumulators(f, accs, List.of("#pragma omp simd"));
          return;
        }
        Store out = StreamingStores.streamedStore(f, func.params());
        if (out != null) {
          streamingStores(f, out);
          return;
        }
        pragmas.add("#pragma omp simd");
      }
      case UNROLLED -> {
        if (f.extent() instanceof IntImm e) {
          pragmas.add("#pragma GCC unroll " + Math.min(e.value(), 65534));
        }
      }
      case SERIAL -> {
        List<Store> accs = Accumulations.trailing(f);
        if (!accs.isEmpty()
            && f.pragmas().isEmpty()
            && accs.stream().allMatch(a -> heapBuffers.contains(a.buffer()))) {
          scalarAccumulators(f, accs, List.of());
          return;
        }
      }
      // GPU-scheduled IR runs with its thread-bound loops one after the other.
      case THREAD_BINDING, VTHREAD -> {}
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
    if (f.kind() == ForKind.PARALLEL) {
      serialFor(f, pragmas, () -> parallelBody(f));
    } else {
      serialFor(f, pragmas);
    }
  }

  /**
   * The body of a parallel loop; the streaming stores in it are fenced once, at its end (each
   * iteration runs on one thread, which sees its own stores in order; the fence orders them before
   * the loop's end, where other threads may read them): a row's fence each was 0.5-0.7 ms of 7 over
   * a softmax's 16384 rows of 1024.
   */
  private void parallelBody(For f) {
    boolean owed = fenceOwed;
    fenceOwed = false;
    parallelLoops++;
    loopBody(f);
    parallelLoops--;
    if (fenceOwed) {
      line("#if defined(KG_STREAM_WIDTH)");
      line("_mm_sfence();");
      line("#endif");
    }
    fenceOwed = owed;
  }

  /** A transposed copy as a call of {@link TransposedCopies#HELPER}. */
  private void transposedCopy(TransposedCopies.Copy c) {
    String f = helper("kg_transpose_32", TransposedCopies.HELPER);
    String dst = name(c.dst()) + "[" + expr(c.dstBase(), true) + "]";
    String src = name(c.src()) + "[" + expr(c.srcBase(), true) + "]";
    line(
        f
            + "(&%s, %d, &%s, %d, %d, %d);"
                .formatted(dst, c.dstStride(), src, c.srcStride(), c.na(), c.nb()));
  }

  /** Parallel loops around the statement being printed. */
  private int parallelLoops;

  /** Whether a streaming store since the innermost parallel loop's start awaits its fence. */
  private boolean fenceOwed;

  /**
   * A row stored with non-temporal stores where the ISA has them and the row's start is aligned to
   * the vector (checked at run time), else the plain vectorized loop: each vector of values is
   * computed into an aligned lane array by a vectorized loop and streamed out whole; a fence after
   * the row orders the streaming stores before what follows.
   */
  private void streamingStores(For f, Store st) {
    helper("kg_stream_f32", StreamingStores.HELPER);
    Expr base = StreamingStores.rowBase(st.index(), f.loopVar());
    String out = names.of(st.buffer(), func.name());
    line("{");
    line("#if defined(KG_STREAM_WIDTH)");
    indent();
    line(
        "if ((((uintptr_t) &"
            + out
            + "["
            + expr(base, true)
            + "]) & (sizeof(float) * KG_STREAM_WIDTH - 1)) == 0) {");
    indent();
    String prev = names.current(f.loopVar());
    String v = names.bind(f.loopVar(), f.loopVar().name());
    Var laneVar = new Var("lane", f.loopVar().dtype());
    String prevLane = names.current(laneVar);
    String lane = names.bind(laneVar, laneVar.name());
    String ty = typeName(f.loopVar().dtype());
    line(
        "for ("
            + ty
            + " "
            + v
            + " = 0; "
            + v
            + " < "
            + loopEnd(f)
            + "; "
            + v
            + " += KG_STREAM_WIDTH) {");
    indent();
    line("float kg_lanes[KG_STREAM_WIDTH] __attribute__((aligned(64)));");
    line("#pragma omp simd");
    line("for (" + ty + " " + lane + " = 0; " + lane + " < KG_STREAM_WIDTH; ++" + lane + ") {");
    indent();
    Expr value =
        dev.kernelgen.te.Substitute.apply(
            st.value(), java.util.Map.of(f.loopVar(), new Binary(BinOp.ADD, f.loopVar(), laneVar)));
    line("kg_lanes[" + lane + "] = " + expr(value, true) + ";");
    dedent();
    line("}");
    line("kg_stream_f32(&" + load(st.buffer(), st.index()) + ", kg_lanes);");
    dedent();
    line("}");
    names.restore(laneVar, prevLane);
    names.restore(f.loopVar(), prev);
    if (parallelLoops > 0) {
      fenceOwed = true;
    } else {
      line("_mm_sfence();");
    }
    dedent();
    line("} else");
    line("#endif");
    line("{");
    indent();
    serialFor(f, List.of("#pragma omp simd"));
    dedent();
    line("}");
    dedent();
    line("}");
  }

  /** Heap temporaries of the module so far: each its own slot of a thread's workspace. */
  private int workspaceSlots;

  /** The temporaries allocated on the heap (a thread's workspace), not on the stack. */
  private final Set<Buffer> heapBuffers = new HashSet<>();

  @Override
  void allocate(Allocate a) {
    String prev = names.current(a.buffer());
    String n = names.bind(a.buffer(), a.buffer().name());
    String ty = elementType(a.buffer().dtype());
    OptionalLong size = constantSize(a);
    boolean heap =
        size.isEmpty() || size.getAsLong() * a.buffer().dtype().bytes() > MAX_STACK_BYTES;
    if (!heap) {
      // Aligned like the heap buffers. Also a workaround: gcc 12 at -O3 -march=native (AVX-512)
      // can vectorize a strided read of a stack array with aligned loads it has not aligned the
      // array for (a depthwise convolution with stride 2 and blocked rows crashed so).
      line(ty + " " + n + "[" + Math.max(1, size.getAsLong()) + "] __attribute__((aligned(64)));");
      stmt(a.body());
    } else {
      heapBuffers.add(a.buffer());
      helper("kg_alloc", Workspace.ALLOC);
      String ws = helper("kg_workspace", Workspace.HELPER);
      String owned = n + "_owned";
      line("int " + owned + " = 1;");
      line(
          ty
              + "* "
              + n
              + " = ("
              + ty
              + "*)"
              + ws
              + "("
              + workspaceSlots++
              + ", (size_t)"
              + expr(a.size(), false)
              + " * "
              + a.buffer().dtype().bytes()
              + ", &"
              + owned
              + ", &"
              + STATUS
              + ");");
      line("if (" + n + " != NULL) {");
      indent();
      stmt(a.body());
      line("if (" + owned + ") {");
      indent();
      line("free(" + n + ");");
      dedent();
      line("}");
      dedent();
      line("}");
    }
    names.restore(a.buffer(), prev);
  }

  @Override
  void barrier(Barrier b) {
    serialBarrier(b, "C");
  }
}
