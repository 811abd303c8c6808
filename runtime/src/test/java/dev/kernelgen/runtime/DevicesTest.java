package dev.kernelgen.runtime;

import static org.assertj.core.api.Assertions.assertThat;

import dev.kernelgen.annotations.Target;
import dev.kernelgen.runtime.opencl.OpenClDevice;
import org.junit.jupiter.api.Test;

class DevicesTest {

  @Test
  void describeListsEveryProbeWithItsOutcome() {
    String d = Devices.describe();
    System.out.println(d);
    assertThat(d.lines()).hasSize(4);
    assertThat(d).contains("CUDA: ", "OPENCL: ", "C: ", "JAVA: available");
    for (Devices.Probe p : Devices.probes()) {
      if (!p.available()) {
        assertThat(p.detail()).as("reason for %s", p.target()).isNotBlank();
      }
    }
  }

  @Test
  void bestIsTheFirstAvailableProbeSkippingOpenClOnTheCpu() {
    Device best = Devices.best();
    Devices.Probe first =
        Devices.probes().stream()
            .filter(Devices.Probe::available)
            .filter(p -> !(p.device().get() instanceof OpenClDevice d && !d.isGpu()))
            .findFirst()
            .orElseThrow();
    assertThat(best).isSameAs(first.device().orElseThrow());
    assertThat(Devices.forTarget(best.target())).containsSame(best);
    if (Devices.cuda().isEmpty() && Devices.openCl().map(OpenClDevice::isGpu).orElse(false)) {
      assertThat(best.target()).isEqualTo(dev.kernelgen.annotations.Target.OPENCL);
    } else if (Devices.cuda().isEmpty()) {
      assertThat(best.target()).isEqualTo(dev.kernelgen.annotations.Target.C);
    }
  }

  @Test
  void cAndJavaAreAlwaysThere() {
    assertThat(Devices.probe(Target.C).available()).isTrue();
    assertThat(Devices.java().target()).isEqualTo(Target.JAVA);
  }

  @Test
  void aMachineWithoutNvidiaDriverSaysSo() {
    Devices.Probe cuda = Devices.probe(Target.CUDA);
    if (!cuda.available()) {
      // The reason names what is missing rather than JCuda's page of stack traces.
      assertThat(cuda.detail()).doesNotContain("\n").hasSizeLessThan(300);
    }
  }
}
