package dev.kernelgen.codegen;

import dev.kernelgen.te.BinOp;
import dev.kernelgen.te.Binary;
import dev.kernelgen.te.Buffer;
import dev.kernelgen.te.DType;
import dev.kernelgen.te.Expr;
import dev.kernelgen.te.FreeVars;
import dev.kernelgen.te.IntImm;
import dev.kernelgen.te.Var;
import dev.kernelgen.tir.Accumulations;
import dev.kernelgen.tir.For;
import dev.kernelgen.tir.Store;
import java.util.List;

/**
 * Which C loops store with non-temporal (streaming) stores, and the per-ISA helper that does it:
 * {@link CCodegen} prints such a loop as a streamed variant for an aligned row beside the plain
 * one.
 */
final class StreamingStores {
  private StreamingStores() {}

  /** The helper: {@code kg_stream_f32} stores one vector of {@code KG_STREAM_WIDTH} lanes. */
  static final String HELPER =
      "#if defined(__AVX512F__) || defined(__AVX__) || defined(__SSE2__)\n"
          + "#include <immintrin.h>\n"
          + "#if defined(__AVX512F__)\n"
          + "#define KG_STREAM_WIDTH 16\n"
          + "static inline void kg_stream_f32(float* p, const float* v) {\n"
          + "  _mm512_stream_ps(p, _mm512_load_ps(v));\n"
          + "}\n"
          + "#elif defined(__AVX__)\n"
          + "#define KG_STREAM_WIDTH 8\n"
          + "static inline void kg_stream_f32(float* p, const float* v) {\n"
          + "  _mm256_stream_ps(p, _mm256_load_ps(v));\n"
          + "}\n"
          + "#else\n"
          + "#define KG_STREAM_WIDTH 4\n"
          + "static inline void kg_stream_f32(float* p, const float* v) {\n"
          + "  _mm_stream_ps(p, _mm_load_ps(v));\n"
          + "}\n"
          + "#endif\n"
          + "#endif\n";

  /**
   * The body of {@code f} when it writes a large float output row with non-temporal (streaming)
   * stores: one store to a float32 parameter (one of {@code params}) of at least {@value
   * #STREAM_BYTES} bytes (constant shape), at {@code base + v} for the loop variable {@code v},
   * which runs from 0 over a constant multiple of 16, the stored value not reading the output. Such
   * an output is written once, in whole cache lines, and does not fit in the caches, so ordinary
   * stores first read every line they write (a 4096 x 4096 softmax on two AVX-512 cores: 11.9 ms
   * with them, 8.4 ms streamed). Else null.
   */
  static Store streamedStore(For f, List<Buffer> params) {
    if (!f.pragmas().isEmpty()
        || !(f.body() instanceof Store st)
        || !params.contains(st.buffer())
        || st.buffer().dtype() != DType.FLOAT32
        || !(f.min() instanceof IntImm lo && lo.value() == 0)
        || !(f.extent() instanceof IntImm n && n.value() % 16 == 0)
        || Accumulations.reads(st.value(), st.buffer())) {
      return null;
    }
    long elements = 1;
    for (Expr d : st.buffer().shape()) {
      if (!(d instanceof IntImm c)) {
        return null;
      }
      elements *= c.value();
    }
    if (elements * 4 < STREAM_BYTES || rowBase(st.index(), f.loopVar()) == null) {
      return null;
    }
    return st;
  }

  /** Outputs at least this large are written with streaming stores (see {@link #streamedStore}). */
  static final long STREAM_BYTES = 32L << 20;

  /** {@code base} where {@code index} is {@code base + v} (or {@code v}: 0) and base lacks v. */
  static Expr rowBase(Expr index, Var v) {
    if (index.equals(v)) {
      return IntImm.of(0);
    }
    if (index instanceof Binary b && b.op() == BinOp.ADD) {
      Expr other = b.b().equals(v) ? b.a() : b.a().equals(v) ? b.b() : null;
      if (other != null && !FreeVars.of(other).contains(v)) {
        return other;
      }
    }
    return null;
  }
}
