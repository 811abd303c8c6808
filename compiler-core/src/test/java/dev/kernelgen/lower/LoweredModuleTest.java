package dev.kernelgen.lower;

import static dev.kernelgen.te.TE.FLOAT32;
import static dev.kernelgen.te.TE.compute;
import static dev.kernelgen.te.TE.placeholder;
import static dev.kernelgen.te.TE.shape;
import static dev.kernelgen.te.TE.var;
import static org.assertj.core.api.Assertions.assertThat;

import dev.kernelgen.annotations.Target;
import dev.kernelgen.codegen.LaunchGeometry;
import dev.kernelgen.schedule.Schedule;
import dev.kernelgen.schedule.Stage;
import dev.kernelgen.te.ExprPrinter;
import dev.kernelgen.te.Tensor;
import dev.kernelgen.te.Var;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Lowering ends at the whole module: host function, kernels with launch geometry, temporaries. */
class LoweredModuleTest {
  /** b = a * 2 at root, c = b + 1: two root stages over symbolic n. */
  private static Schedule twoStages(Tensor a, Tensor[] out, boolean gpu) {
    Tensor b = compute("b", shape(out[0].shape().get(0)), i -> a.at(i).mul(2f));
    Tensor c = compute("c", shape(out[0].shape().get(0)), i -> b.at(i).add(1f));
    out[1] = c;
    Schedule s = Schedule.create(c);
    s.stage(b).computeRoot();
    if (gpu) {
      for (Tensor t : List.of(b, c)) {
        Stage st = s.stage(t);
        Stage.Split sp = st.split(st.axis(0), 64);
        st.bind(sp.outer(), "blockIdx.x");
        st.bind(sp.inner(), "threadIdx.x");
      }
    }
    return s;
  }

  @Test
  void gpuModuleHasOneKernelPerRootStageWithGeometryAndTheTemporaryBetween() {
    Var n = var("n");
    Tensor a = placeholder("a", FLOAT32, n);
    Tensor[] out = {a, null};
    Schedule s = twoStages(a, out, true);
    LoweredModule m =
        Lower.lowerModule(s, "twice", List.of(a, out[1]), Target.CUDA, IndexWidth.WIDE, null);
    assertThat(m.isDevice()).isTrue();
    assertThat(m.host().name()).isEqualTo("twice");
    assertThat(m.kernels())
        .extracting(k -> k.func().name())
        .containsExactly("twice_k0", "twice_k1");
    assertThat(m.temporaries())
        .singleElement()
        .satisfies(
            t -> {
              assertThat(t.buffer().name()).isEqualTo("b");
              assertThat(ExprPrinter.print(t.size())).isEqualTo("int64(n)");
            });
    // What the driver used to compute itself after Lower.lower: the same kernels and geometry.
    SplitHostDevice.DeviceModule dm = SplitHostDevice.split(m.host());
    assertThat(m.functions()).isEqualTo(dm.kernels());
    for (LoweredModule.Kernel k : m.kernels()) {
      assertThat(k.geometry()).isEqualTo(LaunchGeometry.of(k.func()));
      assertThat(ExprPrinter.print(k.geometry().blockX())).isEqualTo("64");
    }
  }

  @Test
  void cpuModuleIsItsHostFunctionWithoutGeometry() {
    Var n = var("n");
    Tensor a = placeholder("a", FLOAT32, n);
    Tensor[] out = {a, null};
    Schedule s = twoStages(a, out, false);
    LoweredModule m =
        Lower.lowerModule(s, "twice", List.of(a, out[1]), Target.C, IndexWidth.NARROW, null);
    assertThat(m.isDevice()).isFalse();
    assertThat(m.temporaries()).isEmpty();
    assertThat(m.kernels())
        .singleElement()
        .satisfies(
            k -> {
              assertThat(k.func()).isSameAs(m.host());
              assertThat(k.geometry()).isNull();
            });
    assertThat(m.host().body().show())
        .isEqualTo(
            Lower.lower(s, "twice", List.of(a, out[1]), Target.C, IndexWidth.NARROW, null)
                .body()
                .show());
  }
}
