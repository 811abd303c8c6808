package dev.kernelgen.runtime.backend;

import static dev.kernelgen.runtime.KernelSignature.ParamKind.INT32;
import static dev.kernelgen.runtime.KernelSignature.ParamKind.POINTER;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.kernelgen.runtime.KernelFunction;
import dev.kernelgen.runtime.KernelSignature;
import dev.kernelgen.runtime.LaunchConfig;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

class FunctionCacheTest {
  private record Fn(String name, KernelSignature signature) implements KernelFunction {
    @Override
    public void launch(LaunchConfig config, Object... args) {}
  }

  private final AtomicInteger binds = new AtomicInteger();

  private Fn bind(String name, KernelSignature signature) {
    binds.incrementAndGet();
    return new Fn(name, signature);
  }

  @Test
  void aKernelIsBoundOnce() {
    FunctionCache<Fn> cache = new FunctionCache<>("CUDA kernel");
    KernelSignature sig = KernelSignature.of(POINTER, INT32);
    Fn first = cache.get("add", sig, this::bind);
    assertThat(cache.get("add", sig, this::bind)).isSameAs(first);
    cache.get("mul", sig, this::bind);
    assertThat(binds).hasValue(2);
    assertThat(cache.bound()).hasSize(2);
  }

  @Test
  void anotherSignatureIsRefusedNamingBoth() {
    FunctionCache<Fn> cache = new FunctionCache<>("OpenCL kernel");
    cache.get("add", KernelSignature.of(POINTER, INT32), this::bind);
    assertThatThrownBy(() -> cache.get("add", KernelSignature.of(POINTER), this::bind))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageStartingWith("OpenCL kernel add was bound with ")
        .hasMessageContaining(", not ");
    assertThat(binds).hasValue(1);
  }
}
