package dev.kernelgen.maven.launcher;

import static dev.kernelgen.te.TE.FLOAT32;
import static dev.kernelgen.te.TE.compute;
import static dev.kernelgen.te.TE.placeholder;
import static dev.kernelgen.te.TE.shape;
import static dev.kernelgen.te.TE.var;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assumptions.assumeThat;

import dev.kernelgen.annotations.Target;
import dev.kernelgen.codegen.CCodegen;
import dev.kernelgen.codegen.NativeToolchain;
import dev.kernelgen.eval.NDArray;
import dev.kernelgen.eval.TensorInterpreter;
import dev.kernelgen.lower.Lower;
import dev.kernelgen.runtime.DataType;
import dev.kernelgen.runtime.DeviceException;
import dev.kernelgen.runtime.HostTensor;
import dev.kernelgen.runtime.KernelBinary;
import dev.kernelgen.runtime.KernelFunction;
import dev.kernelgen.runtime.KernelModule;
import dev.kernelgen.runtime.KernelSignature;
import dev.kernelgen.runtime.LaunchConfig;
import dev.kernelgen.runtime.cpu.CpuDevice;
import dev.kernelgen.runtime.cpu.NativeLibraryCache;
import dev.kernelgen.schedule.Schedule;
import dev.kernelgen.te.Tensor;
import dev.kernelgen.te.Var;
import dev.kernelgen.tir.PrimFunc;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A generated C kernel whose temporary cannot be allocated returns the bytes it asked for, and the
 * C device throws naming the kernel and the bytes; before, {@code kg_alloc} called {@code abort()}
 * and took the JVM with it. The test makes {@code kg_alloc} fail above 1 KiB ({@code
 * KG_TEST_ALLOC_LIMIT}), so no real memory is exhausted.
 */
class CKernelAllocationFailureTest {
  @TempDir Path dir;

  @Test
  void anAllocationFailureIsAnExceptionNamingTheKernelAndTheBytes() throws Exception {
    assumeThat(NativeToolchain.fromEnvironment().findCc()).as("cc on PATH").isPresent();
    Var n = var("n");
    Tensor x = placeholder("x", FLOAT32, n);
    Tensor doubled = compute("doubled", shape(n), i -> x.at(i).mul(2f));
    Tensor y = compute("y", shape(n), i -> doubled.at(n.sub(1).sub(i)).add(1f));
    // doubled stays at root: a temporary of n floats on the heap (its size is symbolic).
    PrimFunc f = Lower.lower(Schedule.create(y), "reverse_plus", List.of(x, y), Target.C, null);
    String source =
        "#define KG_TEST_ALLOC_LIMIT 1024\n" + CCodegen.generate(List.of(f), "alloc_test");
    assertThat(source).contains("kg_alloc(");
    Path lib = dir.resolve("alloc_test.so");
    NativeToolchain.fromEnvironment().compileSharedLibrary(source, lib);
    CpuDevice cpu = CpuDevice.create(new NativeLibraryCache(dir.resolve("cache")));
    try (KernelModule m =
        cpu.loadModule(new KernelBinary.C("alloc_test", Files.readAllBytes(lib)))) {
      KernelFunction fn =
          m.function(
              "reverse_plus",
              KernelSignature.of(
                  KernelSignature.ParamKind.POINTER,
                  KernelSignature.ParamKind.POINTER,
                  KernelSignature.ParamKind.INT32));
      // 200 floats: 800 bytes, under the limit; checked against the interpreter.
      NDArray in = NDArray.random(dev.kernelgen.te.DType.FLOAT32, 3, 200);
      NDArray expected =
          TensorInterpreter.evaluate(List.of(y), Map.of(x, in), Map.of(n, 200L)).get(y);
      try (HostTensor hx = HostTensor.wrap(DataType.FLOAT32, in.segment(), 200);
          HostTensor hy = HostTensor.zeros(DataType.FLOAT32, 200)) {
        fn.launch(LaunchConfig.HOST, hx, hy, 200);
        assertThat(
                NDArray.compare(
                    expected,
                    NDArray.wrap(dev.kernelgen.te.DType.FLOAT32, hy.segment(), 200),
                    1e-6,
                    1e-6))
            .isNull();
      }
      // 1000 floats: 4000 bytes, over it.
      try (HostTensor hx = HostTensor.zeros(DataType.FLOAT32, 1000);
          HostTensor hy = HostTensor.zeros(DataType.FLOAT32, 1000)) {
        assertThatThrownBy(() -> fn.launch(LaunchConfig.HOST, hx, hy, 1000))
            .isInstanceOf(DeviceException.class)
            .hasMessageContaining("kernel reverse_plus")
            .hasMessageContaining("could not allocate 4000 bytes");
        // The process lives on, and the kernel still runs where memory suffices.
        fn.launch(LaunchConfig.HOST, hx, hy, 100);
      }
    }
  }
}
