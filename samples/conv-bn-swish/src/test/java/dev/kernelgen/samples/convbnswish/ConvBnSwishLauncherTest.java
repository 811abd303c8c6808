package dev.kernelgen.samples.convbnswish;

import static org.assertj.core.api.Assertions.assertThat;

import dev.kernelgen.annotations.Target;
import dev.kernelgen.eval.NDArray;
import dev.kernelgen.runtime.Device;
import dev.kernelgen.runtime.Devices;
import dev.kernelgen.runtime.HostTensor;
import dev.kernelgen.samples.convbnswish.ConvBnSwishLoop.Dims;
import dev.kernelgen.te.DType;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * The generated launcher on each target (C, Java, OpenCL, CUDA; a target without a device here is
 * skipped, saying why): on ragged shapes, which run the generic kernels, equal to the interpreter's
 * evaluation of the spec; on the specialized shapes, which run the kernels compiled (and tuned) for
 * them, equal to the plain Java loop.
 */
class ConvBnSwishLauncherTest {
  static final Dims[] RAGGED = {
    new Dims(2, 3, 7, 5, 4),
    new Dims(1, 1, 1, 1, 1),
    new Dims(3, 5, 2, 9, 6),
    new Dims(1, 17, 13, 11, 19)
  };

  static final Dims[] SPECIALIZED = {new Dims(1, 64, 56, 56, 64), new Dims(8, 32, 28, 28, 32)};

  @ParameterizedTest
  @EnumSource(Target.class)
  void raggedShapesEqualTheInterpreter(Target target) {
    Device device = device(target);
    try (ConvBnSwishKernels k = ConvBnSwishKernels.load(device)) {
      assertThat(k.device().target()).isEqualTo(target);
      for (Dims d : RAGGED) {
        Inputs in = Inputs.random(d, 31L * d.hashCode() + target.ordinal());
        NDArray.assertClose(in.interpreted(), run(k, in), 1e-4, 1e-4);
      }
    }
  }

  @ParameterizedTest
  @EnumSource(Target.class)
  void specializedShapesEqualTheJavaLoop(Target target) {
    Device device = device(target);
    try (ConvBnSwishKernels k = ConvBnSwishKernels.load(device)) {
      for (Dims d : SPECIALIZED) {
        Inputs in = Inputs.random(d, d.hashCode());
        NDArray expected =
            NDArray.of(DType.FLOAT32, d.output(), ConvBnSwishLoopTest.toDoubles(in.loop()));
        NDArray.assertClose(expected, run(k, in), 1e-4, 1e-4);
      }
    }
  }

  private static NDArray run(ConvBnSwishKernels k, Inputs in) {
    HostTensor[] t = in.hostTensors();
    try (HostTensor out = k.allocateConvBnSwishOutput(t[0], t[1], t[2], t[3], t[4], t[5])) {
      k.convBnSwish(t[0], t[1], t[2], t[3], t[4], t[5], out);
      return NDArray.of(
          DType.FLOAT32, in.dims().output(), ConvBnSwishLoopTest.toDoubles(out.toFloatArray()));
    } finally {
      for (HostTensor h : t) {
        h.close();
      }
    }
  }

  private static Device device(Target target) {
    Devices.Probe probe = Devices.probe(target);
    Assumptions.assumeTrue(
        probe.available(), "no " + target + " device here (" + probe.detail() + "): skipped");
    return probe.device().orElseThrow();
  }
}
