package dev.kernelgen.autosched;

import static dev.kernelgen.te.TE.FLOAT32;
import static dev.kernelgen.te.TE.placeholder;
import static org.assertj.core.api.Assertions.assertThat;

import dev.kernelgen.annotations.Target;
import dev.kernelgen.lower.Lower;
import dev.kernelgen.schedule.Schedule;
import dev.kernelgen.te.Tensor;
import dev.kernelgen.testing.Check;
import dev.kernelgen.tir.IRPrinter;
import dev.kernelgen.topi.Padding;
import dev.kernelgen.topi.Winograd;
import java.util.EnumSet;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** {@link BatchSlices}: large producers computed per batch element of their reader, on C. */
class BatchSlicesTest {
  private static List<Tensor> winograd(int batch, int channels, int plane, int features) {
    Tensor x = placeholder("X", FLOAT32, batch, channels, plane, plane);
    Tensor w = placeholder("W", FLOAT32, features, channels, 3, 3);
    return List.of(Winograd.conv2dNchw(x, w, new Padding(1, 1, 1, 1), 2));
  }

  private static String ir(Schedule s) {
    var f = Lower.lower(s, "f", Target.C);
    return IRPrinter.print(f);
  }

  @Test
  void theProductsOfEachImageAreComputedInItsIteration() {
    // 16 products of [32 features, 1024 tiles]: 2 MB an image, over 4 images.
    List<Tensor> out = winograd(4, 8, 64, 32);
    Schedule s = AutoScheduler.untuned(Target.C, out);
    String ir = ir(s);
    int batch = ir.indexOf("parallel i in [0, 4)");
    assertThat(batch).as(ir).isGreaterThanOrEqualTo(0);
    assertThat(ir.indexOf("allocate WinogradProduct")).isGreaterThan(batch);
    Check.check(
        s,
        List.of(s.inputs().get(0), s.inputs().get(1), out.get(0)),
        Map.of(),
        EnumSet.of(Check.Backend.C),
        1e-4,
        1e-4);
  }

  @Test
  void smallProductsOrBatchesStayAtRoot() {
    // One image: the batch loop would leave a core idle. 2 images of small products: in cache.
    for (List<Tensor> out : List.of(winograd(1, 8, 64, 32), winograd(8, 4, 16, 4))) {
      String ir = ir(AutoScheduler.untuned(Target.C, out));
      assertThat(ir.indexOf("allocate WinogradProduct")).as(ir).isLessThan(ir.indexOf("parallel"));
    }
    // Java keeps its schedule.
    String java =
        IRPrinter.print(
            Lower.lower(
                AutoScheduler.untuned(Target.JAVA, winograd(4, 8, 64, 32)), "f", Target.JAVA));
    assertThat(java.indexOf("allocate WinogradProduct")).isLessThan(java.indexOf("parallel"));
  }
}
