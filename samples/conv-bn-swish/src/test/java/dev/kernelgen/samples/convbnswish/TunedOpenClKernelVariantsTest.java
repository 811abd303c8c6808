package dev.kernelgen.samples.convbnswish;

import static org.assertj.core.api.Assertions.assertThat;

import dev.kernelgen.annotations.Target;
import dev.kernelgen.eval.NDArray;
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
import dev.kernelgen.te.DType;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.UnaryOperator;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;

/**
 * A probe of the tuned OpenCL kernel of the specialized shape [8,32,28,28]x32 (the OPENCL record of
 * {@code ConvBnSwishKernels.jsonl}: threads 2x1x7x14, 196 work-items per group, 256 groups), which
 * is wrong on the H200 machine's PoCL 5.0 (loopvec and cbs) and right on PoCL 3.1 and as CUDA. The
 * kernel source is valid OpenCL C (barriers in uniform control flow, private accumulators zeroed
 * unconditionally, every local element written before the barrier that precedes its reads, every
 * access in bounds); this test runs the embedded source and rewrites of it that each remove one
 * feature PoCL's work-group compilation may mishandle, each against the plain Java loop, and prints
 * one line per variant, so that one run on a PoCL shows which feature it miscompiles. It fails when
 * any variant is wrong. A diagnostic, in the exhaustive tier (CI's step of its own); {@link
 * TunedOpenClConfigsTest} checks the embedded kernels themselves in {@code verify}.
 */
@org.junit.jupiter.api.Tag("exhaustive")
class TunedOpenClKernelVariantsTest {
  static final Dims SHAPE = new Dims(8, 32, 28, 28, 32);
  static final String KERNEL = "convBnSwish_n8_c32_h28_w28_k32";
  static final int GROUPS = 256;
  static final int LOCAL = 196;

  @Test
  void everyVariantOfTheTunedKernelEqualsTheJavaLoop() throws IOException {
    Devices.Probe probe = Devices.probe(Target.OPENCL);
    Assumptions.assumeTrue(
        probe.available(), "no OPENCL device here (" + probe.detail() + "): skipped");
    Device device = probe.device().orElseThrow();
    String source = resource("/META-INF/kernels/ConvBnSwishKernels/opencl/ConvBnSwishKernels.cl");
    String prelude = source.substring(0, source.indexOf("__kernel void "));
    String kernel = kernelText(source, KERNEL);
    assertThat(kernel).contains("barrier(CLK_LOCAL_MEM_FENCE);").contains("get_local_id(0)");

    Inputs in = Inputs.random(SHAPE, 8L);
    NDArray expected =
        NDArray.of(DType.FLOAT32, SHAPE.output(), ConvBnSwishLoopTest.toDoubles(in.loop()));
    Map<String, String> results = new LinkedHashMap<>();
    List<String> wrong = new ArrayList<>();
    for (Variant v : variants()) {
      String text = prelude + v.rewrite().apply(kernel);
      if (v.buildOptions().isEmpty() && !v.name().equals("as generated")) {
        assertThat(text).as(v.name() + " rewrites the kernel").isNotEqualTo(prelude + kernel);
      }
      String diff;
      try {
        diff = run(device, v, text, in, expected);
      } catch (RuntimeException e) { // a variant the driver rejects: named, the others still run
        diff = "error: " + e.getMessage();
      }
      results.put(v.name(), diff == null ? "ok" : diff.lines().findFirst().orElse(diff));
      if (diff != null) {
        wrong.add(v.name());
      }
    }
    results.forEach((k, r) -> System.out.println("variant " + k + ": " + r));
    System.out.println("on " + device.name());
    assertThat(wrong).as("variants wrong on " + device.name() + ": " + results).isEmpty();
  }

  record Variant(String name, UnaryOperator<String> rewrite, int local, String buildOptions) {}

  static List<Variant> variants() {
    return List.of(
        new Variant("as generated", s -> s, LOCAL, ""),
        new Variant("built with -cl-opt-disable", s -> s, LOCAL, "-cl-opt-disable"),
        // 208 = 13 x 16, a multiple of AVX-512's 16 float lanes (PoCL vectorizes the work-item
        // loops across work-items): the extra 12 work-items repeat work-item 195's work exactly.
        new Variant(
            "208 work-items, ids clamped to 195",
            s ->
                s.replace("(int)get_local_id(0)", "min((int)get_local_id(0), " + (LOCAL - 1) + ")"),
            208,
            ""),
        new Variant(
            "barrier loop kept rolled",
            s -> s.replace("for (int rc_outer", "#pragma unroll 1\n  for (int rc_outer"),
            LOCAL,
            ""),
        new Variant("no restrict", s -> s.replace(" restrict ", " "), LOCAL, ""),
        new Variant(
            "scalar accumulators",
            s ->
                s.replaceAll("float Conv\\[(\\d+)\\];", "float Conv_0, Conv_1, Conv_2, Conv_3;")
                    .replaceAll("Conv\\[(\\d+)\\]", "Conv_$1"),
            LOCAL,
            ""),
        new Variant(
            "unconditional input loads", TunedOpenClKernelVariantsTest::selectLoads, LOCAL, ""),
        new Variant(
            "no local memory, no barrier",
            TunedOpenClKernelVariantsTest::withoutBarriers,
            LOCAL,
            ""));
  }

  /**
   * {@code (COND ? x[IDX] : 0.0f)} becomes {@code select(0.0f, x[(COND) ? (IDX) : 0],
   * (int)(COND))}: the load always runs, from element 0 where the condition is false.
   */
  static String selectLoads(String s) {
    StringBuilder out = new StringBuilder();
    int from = 0;
    while (true) {
      int q = s.indexOf(" ? x[", from);
      if (q < 0) {
        break;
      }
      int condEnd = q; // s[q-1] is the condition's closing parenthesis
      int condStart = matchBackward(s, condEnd - 1);
      int idxStart = q + " ? x[".length();
      int idxEnd = matchForward(s, idxStart - 1);
      String rest = " : 0.0f";
      if (!s.startsWith(rest, idxEnd + 1)) {
        throw new IllegalStateException("unexpected load at " + q);
      }
      String cond = s.substring(condStart, condEnd);
      String idx = s.substring(idxStart, idxEnd);
      out.append(s, from, condStart)
          .append("select(0.0f, x[(")
          .append(cond)
          .append(") ? (")
          .append(idx)
          .append(") : 0], (int)(")
          .append(cond)
          .append("))");
      from = idxEnd + 1 + rest.length();
    }
    return out.append(s.substring(from)).toString();
  }

  /**
   * The filter read from global memory where the kernel reads its local copy: the staging store and
   * both barriers dropped, {@code weight_shared[i]} read as the weight element it holds.
   */
  static String withoutBarriers(String s) {
    String staged =
        "(((i_outer_j_outer_fused_k_outer_fused_l_outer_fused / 4) % 32) * 288) + (rc_outer * 144) + ";
    String out =
        s.replace("  __local float weight_shared[144];\n", "")
            .replace("barrier(CLK_LOCAL_MEM_FENCE);", "")
            .replaceAll(
                "(?m)^    if \\(\\(i_j_fused_k_fused_l_fused_inner < 144\\).*\\n.*\\n    }\\n", "")
            .replace("weight_shared[", "weight[" + staged);
    if (out.contains("weight_shared") || out.contains("barrier(")) {
      throw new IllegalStateException("the kernel's staging changed: " + out);
    }
    return out;
  }

  private static int matchBackward(String s, int close) {
    int depth = 0;
    for (int i = close; i >= 0; i--) {
      char c = s.charAt(i);
      depth += c == ')' ? 1 : c == '(' ? -1 : 0;
      if (depth == 0) {
        return i;
      }
    }
    throw new IllegalStateException("unbalanced parentheses before " + close);
  }

  private static int matchForward(String s, int open) {
    int depth = 0;
    for (int i = open; i < s.length(); i++) {
      char c = s.charAt(i);
      depth += c == '[' ? 1 : c == ']' ? -1 : 0;
      if (depth == 0) {
        return i;
      }
    }
    throw new IllegalStateException("unbalanced brackets after " + open);
  }

  private static String run(Device device, Variant v, String text, Inputs in, NDArray expected) {
    HostTensor[] host = in.hostTensors();
    List<DeviceBuffer> buffers = new ArrayList<>();
    try (KernelModule m =
            device.loadModule(new KernelBinary.OpenCl(KERNEL, text, v.buildOptions()));
        HostTensor out = HostTensor.zeros(DataType.FLOAT32, SHAPE.output())) {
      for (HostTensor h : host) {
        buffers.add(device.upload(h));
      }
      buffers.add(device.allocate(DataType.FLOAT32, out.elementCount()));
      KernelSignature sig = KernelSignature.of(pointers(buffers.size()));
      m.function(KERNEL, sig)
          .launch(
              new LaunchConfig(new int[] {GROUPS, 1, 1}, new int[] {v.local(), 1, 1}, 0),
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

  private static KernelSignature.ParamKind[] pointers(int n) {
    KernelSignature.ParamKind[] p = new KernelSignature.ParamKind[n];
    java.util.Arrays.fill(p, KernelSignature.ParamKind.POINTER);
    return p;
  }

  static String kernelText(String source, String name) {
    int start = source.indexOf("__kernel void " + name + "(");
    assertThat(start).as("kernel " + name + " in the embedded OpenCL source").isNotNegative();
    int next = source.indexOf("__kernel void ", start + 1);
    return next < 0 ? source.substring(start) : source.substring(start, next);
  }

  private static String resource(String path) throws IOException {
    try (InputStream s = TunedOpenClKernelVariantsTest.class.getResourceAsStream(path)) {
      assertThat(s).as(path).isNotNull();
      return new String(s.readAllBytes(), StandardCharsets.UTF_8);
    }
  }
}
