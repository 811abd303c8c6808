package dev.kernelgen.runtime.backend;

import static dev.kernelgen.runtime.KernelSignature.ParamKind.FLOAT32;
import static dev.kernelgen.runtime.KernelSignature.ParamKind.FLOAT64;
import static dev.kernelgen.runtime.KernelSignature.ParamKind.INT32;
import static dev.kernelgen.runtime.KernelSignature.ParamKind.INT64;
import static dev.kernelgen.runtime.KernelSignature.ParamKind.POINTER;
import static org.assertj.core.api.Assertions.assertThat;

import dev.kernelgen.runtime.KernelSignature;
import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class KernelArgumentsTest {
  /** Each argument reaches the sink of its parameter kind, widened where the signature allows. */
  @Test
  void scalarsAreConvertedByParameterKindAndPointersPassedAsTheyAre() {
    KernelSignature sig = KernelSignature.of(POINTER, INT32, INT64, FLOAT32, FLOAT64, INT64);
    Object buffer = MemorySegment.ofArray(new float[1]);
    Object[] args = {buffer, 3, 4, 1.5f, 2.5f, 5L};
    sig.checkArguments("test", args);
    List<String> seen = new ArrayList<>();
    KernelArguments.marshal(
        sig,
        args,
        new KernelArguments.Sink() {
          @Override
          public void pointer(int i, Object arg) {
            seen.add(i + " pointer " + (arg == buffer));
          }

          @Override
          public void int32(int i, int value) {
            seen.add(i + " int " + value);
          }

          @Override
          public void int64(int i, long value) {
            seen.add(i + " long " + value);
          }

          @Override
          public void float32(int i, float value) {
            seen.add(i + " float " + value);
          }

          @Override
          public void float64(int i, double value) {
            seen.add(i + " double " + value);
          }
        });
    assertThat(seen)
        .containsExactly(
            "0 pointer true", "1 int 3", "2 long 4", "3 float 1.5", "4 double 2.5", "5 long 5");
  }

  @Test
  void aForeignPointerIsNamed() {
    assertThat(KernelArguments.notABuffer("CUDA 0, kernel k", 2, "x", "this GPU"))
        .hasMessage("CUDA 0, kernel k: argument 2 (x) is not a buffer on this GPU");
  }
}
