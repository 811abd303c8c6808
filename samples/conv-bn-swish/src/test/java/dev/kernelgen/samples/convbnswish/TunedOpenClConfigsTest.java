package dev.kernelgen.samples.convbnswish;

import static org.assertj.core.api.Assertions.assertThat;

import dev.kernelgen.annotations.Target;
import dev.kernelgen.autosched.AutoScheduler;
import dev.kernelgen.codegen.LaunchGeometry;
import dev.kernelgen.codegen.OpenClCodegen;
import dev.kernelgen.eval.NDArray;
import dev.kernelgen.lower.Lower;
import dev.kernelgen.lower.SplitHostDevice;
import dev.kernelgen.runtime.DataType;
import dev.kernelgen.runtime.Device;
import dev.kernelgen.runtime.DeviceBuffer;
import dev.kernelgen.runtime.Devices;
import dev.kernelgen.runtime.HostTensor;
import dev.kernelgen.runtime.KernelBinary;
import dev.kernelgen.runtime.KernelModule;
import dev.kernelgen.runtime.KernelSignature;
import dev.kernelgen.runtime.LaunchConfig;
import dev.kernelgen.samples.convbnswish.ConvBnSwishLoop.Dims;
import dev.kernelgen.spec.Knobs;
import dev.kernelgen.spec.OperatorDef;
import dev.kernelgen.te.DType;
import dev.kernelgen.te.Tensor;
import dev.kernelgen.te.Var;
import dev.kernelgen.tir.PrimFunc;
import java.io.IOException;
import java.io.InputStream;
import java.lang.reflect.Method;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;

/**
 * The auto-scheduler's OpenCL kernels of the specialized shape [8,32,28,28]x32 at the tuned
 * record's configuration (threads 2x1x7x14: 196 work-items per group, wrong on the H200 machine's
 * PoCL 5.0) and at configurations that differ from it only in threads per group (98 and 392, not
 * multiples of 16 either; 112 and 784, multiples of 16: AVX-512's float lanes, across which PoCL
 * vectorizes work-items), each against the plain Java loop, one line per configuration: on a PoCL
 * that is wrong for some, the lines say whether the work-group size is what matters. First it
 * checks that the tuned configuration lowers to exactly the kernel the sample embeds, so the probe
 * runs what the launcher runs.
 */
class TunedOpenClConfigsTest {
  static final Dims SHAPE = new Dims(8, 32, 28, 28, 32);

  /** The OPENCL record of ConvBnSwishKernels.jsonl for the shape (the kernel the sample embeds). */
  static final Map<String, Integer> TUNED = config(2, 1, 1, 2, 1, 2, 1, 7, 14, 16, 0);

  static Map<String, Integer> config(
      int r0, int r1, int r2, int r3, int shared, int t0, int t1, int t2, int t3, int tk, int sk) {
    Map<String, Integer> c = new LinkedHashMap<>();
    int[] v = {r0, r1, r2, r3, shared, t0, t1, t2, t3, tk, sk};
    String[] k = {
      "Conv.reg0",
      "Conv.reg1",
      "Conv.reg2",
      "Conv.reg3",
      "Conv.shared",
      "Conv.threads0",
      "Conv.threads1",
      "Conv.threads2",
      "Conv.threads3",
      "Conv.tile_k",
      AutoScheduler.SKETCH
    };
    for (int i = 0; i < k.length; i++) {
      c.put(k[i], v[i]);
    }
    return c;
  }

  @Test
  void theTunedConfigurationAndItsNeighboursEqualTheJavaLoop() throws Exception {
    Devices.Probe probe = Devices.probe(Target.OPENCL);
    Assumptions.assumeTrue(
        probe.available(), "no OPENCL device here (" + probe.detail() + "): skipped");
    Device device = probe.device().orElseThrow();
    OperatorDef def = specialized();

    Kernel tuned = kernel(def, TUNED);
    String embedded =
        TunedOpenClKernelVariantsTest.kernelText(
            resource("/META-INF/kernels/ConvBnSwishKernels/opencl/ConvBnSwishKernels.cl"),
            TunedOpenClKernelVariantsTest.KERNEL);
    assertThat(TunedOpenClKernelVariantsTest.kernelText(tuned.source(), "probe").strip())
        .as("the tuned configuration lowers to the embedded kernel")
        .isEqualTo(embedded.replace(TunedOpenClKernelVariantsTest.KERNEL + "(", "probe(").strip());

    Map<String, Map<String, Integer>> configs = new LinkedHashMap<>();
    configs.put("tuned, 196 work-items", TUNED);
    configs.put("98 work-items (threads 1x1x7x14)", config(2, 1, 1, 2, 1, 1, 1, 7, 14, 16, 0));
    configs.put("392 work-items (threads 2x2x7x14)", config(2, 1, 1, 2, 1, 2, 2, 7, 14, 16, 0));
    configs.put("112 work-items (threads 2x1x4x14)", config(2, 1, 1, 2, 1, 2, 1, 4, 14, 16, 0));
    configs.put("784 work-items (threads 4x2x7x14)", config(2, 1, 1, 2, 1, 4, 2, 7, 14, 16, 0));

    Inputs in = Inputs.random(SHAPE, 8L);
    NDArray expected =
        NDArray.of(DType.FLOAT32, SHAPE.output(), ConvBnSwishLoopTest.toDoubles(in.loop()));
    Map<String, String> results = new LinkedHashMap<>();
    List<String> wrong = new ArrayList<>();
    for (var e : configs.entrySet()) {
      Kernel k = e.getValue() == TUNED ? tuned : kernel(def, e.getValue());
      String diff;
      try {
        diff = run(device, k, in, expected);
      } catch (RuntimeException ex) { // a kernel the driver rejects: named, the others still run
        diff = "error: " + ex.getMessage();
      }
      String line =
          "block " + k.local() + ", grid " + k.groups() + ": " + (diff == null ? "ok" : diff);
      results.put(e.getKey(), line.lines().findFirst().orElse(line));
      if (diff != null) {
        wrong.add(e.getKey());
      }
    }
    results.forEach((k, r) -> System.out.println("configuration " + k + ": " + r));
    System.out.println("on " + device.name());
    assertThat(wrong).as("configurations wrong on " + device.name() + ": " + results).isEmpty();
  }

  /** One printed kernel and its launch. */
  record Kernel(String source, int groups, int local) {}

  static Kernel kernel(OperatorDef def, Map<String, Integer> config) {
    List<Tensor> args = new ArrayList<>(def.inputs());
    args.addAll(def.outputs());
    var s = AutoScheduler.schedule(Target.OPENCL, def.outputs(), Knobs.configured(config));
    PrimFunc f = Lower.lower(s, "probe", args, Target.OPENCL, null);
    SplitHostDevice.DeviceModule m = SplitHostDevice.split(f);
    assertThat(m.kernels()).as("one kernel for " + config).hasSize(1);
    long[] g = LaunchGeometry.of(m.kernels().getFirst()).evaluate(Map.of());
    assertThat(new long[] {g[1], g[2], g[4], g[5]}).containsOnly(1L);
    return new Kernel(
        OpenClCodegen.generate(m.kernels(), "probe"), Math.toIntExact(g[0]), Math.toIntExact(g[3]));
  }

  /**
   * The spec at the shape, as the driver specializes it (its specializer is package-private: the
   * probe must lower exactly what the driver lowers, which the embedded-kernel check confirms).
   */
  static OperatorDef specialized() throws ReflectiveOperationException {
    OperatorDef def = ConvBnSwishSpec.convBnSwish();
    var x = def.inputs().get(0).shape();
    Map<Var, Long> dims = new LinkedHashMap<>();
    long[] v = {SHAPE.n(), SHAPE.c(), SHAPE.h(), SHAPE.w()};
    for (int d = 0; d < 4; d++) {
      dims.put((Var) x.get(d), v[d]);
    }
    dims.put((Var) def.inputs().get(1).shape().get(0), (long) SHAPE.k());
    Method m =
        Class.forName("dev.kernelgen.driver.Specializer")
            .getDeclaredMethod("specialize", OperatorDef.class, Map.class);
    m.setAccessible(true);
    return (OperatorDef) m.invoke(null, def, dims);
  }

  private static String run(Device device, Kernel k, Inputs in, NDArray expected) {
    HostTensor[] host = in.hostTensors();
    List<DeviceBuffer> buffers = new ArrayList<>();
    try (KernelModule m = device.loadModule(new KernelBinary.OpenCl("probe", k.source()));
        HostTensor out = HostTensor.zeros(DataType.FLOAT32, SHAPE.output())) {
      for (HostTensor h : host) {
        buffers.add(device.upload(h));
      }
      buffers.add(device.allocate(DataType.FLOAT32, out.elementCount()));
      KernelSignature.ParamKind[] p = new KernelSignature.ParamKind[buffers.size()];
      Arrays.fill(p, KernelSignature.ParamKind.POINTER);
      m.function("probe", KernelSignature.of(p))
          .launch(
              new LaunchConfig(new int[] {k.groups(), 1, 1}, new int[] {k.local(), 1, 1}, 0),
              buffers.toArray());
      device.synchronize();
      buffers.getLast().copyToHost(out);
      NDArray got =
          NDArray.of(
              DType.FLOAT32, SHAPE.output(), ConvBnSwishLoopTest.toDoubles(out.toFloatArray()));
      return NDArray.compare(expected, got, 1e-4, 1e-4);
    } finally {
      buffers.forEach(DeviceBuffer::close);
      for (HostTensor h : host) {
        h.close();
      }
    }
  }

  private static String resource(String path) throws IOException {
    try (InputStream s = TunedOpenClConfigsTest.class.getResourceAsStream(path)) {
      assertThat(s).as(path).isNotNull();
      return new String(s.readAllBytes(), StandardCharsets.UTF_8);
    }
  }
}
