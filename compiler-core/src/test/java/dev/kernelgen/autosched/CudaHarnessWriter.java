package dev.kernelgen.autosched;

import static dev.kernelgen.te.TE.FLOAT32;
import static dev.kernelgen.te.TE.compute;
import static dev.kernelgen.te.TE.placeholder;
import static dev.kernelgen.te.TE.reduceAxis;
import static dev.kernelgen.te.TE.shape;
import static dev.kernelgen.te.TE.sum;

import dev.kernelgen.annotations.Target;
import dev.kernelgen.codegen.CudaCodegen;
import dev.kernelgen.codegen.LaunchGeometry;
import dev.kernelgen.lower.Lower;
import dev.kernelgen.lower.SplitHostDevice;
import dev.kernelgen.schedule.Schedule;
import dev.kernelgen.spec.Knobs;
import dev.kernelgen.te.Buffer;
import dev.kernelgen.te.IntImm;
import dev.kernelgen.te.IterVar;
import dev.kernelgen.te.Tensor;
import dev.kernelgen.tir.PrimFunc;
import dev.kernelgen.topi.Elementwise;
import dev.kernelgen.topi.Nn;
import dev.kernelgen.topi.OpSchedules;
import dev.kernelgen.topi.Padding;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;

/**
 * Writes a standalone CUDA program (to {@code KERNELGEN_CUDA_HARNESS}, a directory; skipped when
 * unset) that times, on the GPU, the generated untuned pick of a few operators written as a user
 * would (no tags, no templates) against their previous default and the naive floor, printing each
 * output's checksum so that the three can be compared. Build it with {@code nvcc -O3 -arch=sm_90 -o
 * harness harness.cu}.
 *
 * <p>On an NVIDIA H200 (driver 580.159.04, 2026-12-01), microseconds per call, 20 back-to-back
 * launches between events, equal checksums: dense 1024^3 + bias + relu (no tag: no template) floor
 * 4455, old default (one thread per element) 4456, generated 143; layer norm [4096, 1024] floor
 * 1221, old default (rowsGpu, 64 rows per block) 248, generated (32 rows per block) 165; depthwise
 * 3x3 + pointwise [1, 64, 56, 56] -> 64 floor 51.7, old default 51.9, generated 15.3.
 */
class CudaHarnessWriter {
  @Test
  void write() throws Exception {
    String dir = System.getenv("KERNELGEN_CUDA_HARNESS");
    Assumptions.assumeTrue(dir != null, "KERNELGEN_CUDA_HARNESS not set: skipped");
    Map<String, List<Tensor>> ops = new LinkedHashMap<>();
    Tensor x = placeholder("X", FLOAT32, 1024, 1024);
    Tensor w = placeholder("W", FLOAT32, 1024, 1024);
    Tensor bias = placeholder("Bias", FLOAT32, 1024);
    IterVar k = reduceAxis(1024, "k");
    Tensor dense =
        compute(
            "Dense", shape(1024, 1024), (i, j) -> sum(x.at(i, k.var()).mul(w.at(j, k.var())), k));
    ops.put("dense_bias_relu_1024", List.of(Elementwise.relu(Elementwise.add(dense, bias))));
    Tensor a = placeholder("A", FLOAT32, 4096, 1024);
    Tensor g = placeholder("G", FLOAT32, 1024);
    Tensor b = placeholder("B", FLOAT32, 1024);
    ops.put("layer_norm_4096x1024", List.of(Nn.layerNorm(a, g, b, 1, 1e-5)));
    Tensor in = placeholder("Input", FLOAT32, 1, 64, 56, 56);
    Tensor fd = placeholder("FilterDw", FLOAT32, 64, 1, 3, 3);
    Tensor dw = Nn.depthwiseConv2dNchw(in, fd, 1, 1, Padding.same(56, 56, 3, 3, 1, 1, 1), 1);
    ops.put(
        "dw_pw_block_1x64x56x56",
        List.of(Workloads.pointwise(dw, placeholder("FilterPw", FLOAT32, 64, 64))));
    StringBuilder kernels = new StringBuilder();
    StringBuilder main = new StringBuilder();
    List<PrimFunc> all = new java.util.ArrayList<>();
    for (var e : ops.entrySet()) {
      Map<String, Schedule> ss = new LinkedHashMap<>();
      ss.put("floor", NaiveSchedule.of(Target.CUDA, e.getValue()));
      ss.put(
          "old_default",
          OpSchedules.defaultSchedule(Target.CUDA, e.getValue().get(0), Knobs.defaults()));
      ss.put("generated", AutoScheduler.untuned(Target.CUDA, e.getValue()));
      for (var s : ss.entrySet()) {
        String name = e.getKey() + "_" + s.getKey();
        List<Tensor> args = OpSchedules.args(s.getValue());
        SplitHostDevice.DeviceModule dm =
            SplitHostDevice.split(Lower.lower(s.getValue(), name, args, Target.CUDA, null));
        all.addAll(dm.kernels());
        main.append("  {\n    std::map<std::string, float*> buf;\n");
        for (Tensor t : args) {
          long n =
              t.shape().stream().mapToLong(d -> ((IntImm) d).value()).reduce(1, (p, q) -> p * q);
          boolean out = s.getValue().outputs().contains(t);
          main.append(
              String.format(
                  "    buf[\"%s\"] = alloc(%d, %s);\n", t.name(), n, out ? "false" : "true"));
          if (out) {
            main.append(
                String.format("    const char* outName = \"%s\"; long outN = %d;\n", t.name(), n));
          }
        }
        for (int i = 0; i < dm.temporaries().size(); i++) {
          main.append(
              String.format(
                  "    buf[\"%s\"] = alloc(%d, false);\n",
                  dm.temporaries().get(i).name(), ((IntImm) dm.temporarySizes().get(i)).value()));
        }
        main.append("    auto run = [&]() {\n");
        for (PrimFunc kf : dm.kernels()) {
          long[] geo = LaunchGeometry.of(kf).evaluate(Map.of());
          StringBuilder params = new StringBuilder();
          for (Buffer p : kf.params()) {
            params
                .append(params.length() == 0 ? "" : ", ")
                .append("buf[\"")
                .append(p.name())
                .append("\"]");
          }
          main.append(
              String.format(
                  "      %s<<<dim3(%d, %d, %d), dim3(%d, %d, %d)>>>(%s);\n",
                  kf.name(), geo[0], geo[1], geo[2], geo[3], geo[4], geo[5], params));
        }
        main.append("    };\n");
        main.append(String.format("    report(\"%s\", run, buf[outName], outN);\n", name));
        main.append("    for (auto& p : buf) cudaFree(p.second);\n  }\n");
      }
    }
    kernels.append(CudaCodegen.generate(all, "harness"));
    String prog =
        "#include <cstdio>\n#include <map>\n#include <string>\n#include <vector>\n#include <cmath>\n"
            + kernels
            + "\nstatic float* alloc(long n, bool random) {\n"
            + "  float* d; cudaMalloc(&d, n * 4); std::vector<float> h(n);\n"
            + "  unsigned s = 12345u + (unsigned) n;\n"
            + "  for (long i = 0; i < n; i++) { s = s * 1664525u + 1013904223u; h[i] = random ? ((s >> 8) / 16777216.0f - 0.5f) : 0.0f; }\n"
            + "  cudaMemcpy(d, h.data(), n * 4, cudaMemcpyHostToDevice); return d;\n}\n"
            + "template <class F> static void report(const char* name, F run, float* out, long n) {\n"
            + "  run(); cudaError_t err = cudaDeviceSynchronize();\n"
            + "  if (err != cudaSuccess) { printf(\"%-40s error %s\\n\", name, cudaGetErrorString(err)); return; }\n"
            + "  std::vector<float> h(n); cudaMemcpy(h.data(), out, n * 4, cudaMemcpyDeviceToHost);\n"
            + "  double sum = 0, abs = 0; for (long i = 0; i < n; i++) { sum += h[i]; abs += fabs(h[i]); }\n"
            + "  cudaEvent_t a, b; cudaEventCreate(&a); cudaEventCreate(&b);\n"
            + "  for (int i = 0; i < 3; i++) run();\n"
            + "  int reps = 20; cudaEventRecord(a); for (int i = 0; i < reps; i++) run(); cudaEventRecord(b); cudaEventSynchronize(b);\n"
            + "  float ms; cudaEventElapsedTime(&ms, a, b);\n"
            + "  printf(\"%-40s %10.1f us   checksum %.6e  abs %.6e\\n\", name, 1000.0 * ms / reps, sum, abs);\n}\n"
            + "int main() {\n"
            + main
            + "  return 0;\n}\n";
    Files.createDirectories(Path.of(dir));
    Files.writeString(Path.of(dir, "harness.cu"), prog);
  }
}
