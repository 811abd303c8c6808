package dev.kernelgen.bench.gpu;

import static dev.kernelgen.te.TE.FLOAT32;
import static dev.kernelgen.te.TE.cast;
import static dev.kernelgen.te.TE.compute;
import static dev.kernelgen.te.TE.placeholder;
import static dev.kernelgen.te.TE.shape;
import static dev.kernelgen.te.TE.var;
import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.kernelgen.annotations.Target;
import dev.kernelgen.codegen.NativeToolchain;
import dev.kernelgen.runtime.DataType;
import dev.kernelgen.runtime.Device;
import dev.kernelgen.runtime.DeviceBuffer;
import dev.kernelgen.runtime.Devices;
import dev.kernelgen.runtime.HostTensor;
import dev.kernelgen.runtime.cuda.CudaDevice;
import dev.kernelgen.schedule.Schedule;
import dev.kernelgen.spec.Knobs;
import dev.kernelgen.spec.OperatorDef;
import dev.kernelgen.te.Tensor;
import dev.kernelgen.te.Var;
import dev.kernelgen.topi.DefaultSchedules;
import dev.kernelgen.topi.Elementwise;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/**
 * Issue 12 on the GPU: a fused elementwise kernel (the library's default GPU schedule, one thread
 * per element, the loops fused) over [3, 2^30 + 7] float32, 3.2 G elements and 12.9 GB a tensor,
 * its last elements checked against the formula. With 32-bit loop variables the fused index wraps
 * at 2^31 and the kernel writes wrong addresses. Needs a CUDA device with 30 GB free (the H200:
 * {@code bench/gpu.sh tests OUT}).
 */
class LargeIndexCudaTest {
  private static final long N = 3;
  private static final long M = (1L << 30) + 7;

  /** {@code float((7 i + j) mod 1000)}, computed from the indices: no 12.9 GB upload. */
  private static float pattern(long i, long j) {
    return Math.floorMod(7 * i + j, 1000);
  }

  @Test
  void aFusedElementwiseKernelPast2e31ElementsWritesItsLastElements() {
    Optional<CudaDevice> d = Devices.cuda();
    assumeTrue(
        d.isPresent(),
        "no CUDA device found ("
            + Devices.probe(Target.CUDA).detail()
            + "); runs on a GPU machine with 30 GB of device memory");
    assertThat(N * M).isGreaterThan(1L << 31);
    checkLastElements(d.get(), N, M);
  }

  /** The same kernels on a small shape, on OpenCL (PoCL here): the test's own logic. */
  @Test
  void theSameKernelsOnASmallShapeOnOpenCl() {
    checkLastElements(OpenClTests.deviceOrSkip(), N, 1007);
  }

  /** The kernels as CUDA C: 64-bit indices, and nvcc compiles them. */
  @Test
  void theCudaKernelsHave64BitIndicesAndCompile() {
    NativeToolchain tc = NativeToolchain.fromEnvironment();
    assumeTrue(
        tc.findNvcc().isPresent(),
        "nvcc not found on the PATH, in $CUDA_HOME/bin or /usr/local/cuda/bin");
    Ops ops = new Ops();
    for (var e : Map.of("fill", ops.pattern, "fused", ops.y, "gather", ops.tail).entrySet()) {
      Tensor out = e.getValue();
      List<Tensor> inputs = Schedule.create(out).inputs();
      List<Tensor> args = new java.util.ArrayList<>(inputs);
      args.add(out);
      DeviceOperator.Compiled c =
          DeviceOperator.compile(Target.CUDA, schedule(out, inputs), args, e.getKey());
      assertThat(c.source()).as(e.getKey()).contains("long long");
      assertThat(c.module().kernels()).hasSize(1);
    }
  }

  /** The operators: the pattern, the fused elementwise one, the gather of the last elements. */
  private static final class Ops {
    final Var n = var("n");
    final Var m = var("m");
    // The input, written by a kernel of its own from the indices: no 12.9 GB upload.
    final Tensor pattern =
        compute("Pattern", shape(n, m), (i, j) -> cast(FLOAT32, i.mul(7).add(j).floormod(1000)));
    // The fused elementwise operator under test: relu(2x - 500) + 1 in one kernel.
    final Tensor x = placeholder("X", FLOAT32, n, m);
    final Tensor y =
        Elementwise.addScalar(
            Elementwise.relu(Elementwise.addScalar(Elementwise.scale(x, 2), -500)), 1);
    // The last eight elements of the result, gathered into a small tensor to read back.
    final Tensor yIn = placeholder("Y", FLOAT32, n, m);
    final Tensor tail = compute("Tail", shape(8), k -> yIn.at(n.sub(1), m.sub(8).add(k)));
  }

  private static void checkLastElements(Device device, long rows, long cols) {
    Ops ops = new Ops();
    Map<Var, Long> dims = Map.of(ops.n, rows, ops.m, cols);
    long count = rows * cols;
    try (DeviceBuffer xb = device.allocate(DataType.FLOAT32, count);
        DeviceBuffer yb = device.allocate(DataType.FLOAT32, count);
        DeviceBuffer tb = device.allocate(DataType.FLOAT32, 8);
        DeviceOperator fill = op(device, ops.pattern, List.of(), "fill", dims);
        DeviceOperator fused = op(device, ops.y, List.of(ops.x), "fused", dims);
        DeviceOperator gather = op(device, ops.tail, List.of(ops.yIn), "gather", dims)) {
      assertThat(fused.kernelCount()).isEqualTo(1);
      fill.launch(List.of(xb));
      fused.launch(List.of(xb, yb));
      gather.launch(List.of(yb, tb));
      device.synchronize();
      try (HostTensor h = HostTensor.zeros(DataType.FLOAT32, 8)) {
        tb.copyToHost(h);
        float[] got = h.toFloatArray();
        for (int k = 0; k < 8; k++) {
          float v = pattern(rows - 1, cols - 8 + k);
          float want = Math.max(v * 2 - 500, 0) + 1;
          assertThat(got[k]).as("element [%d, %d]", rows - 1, cols - 8 + k).isEqualTo(want);
        }
      }
    }
  }

  private static Schedule schedule(Tensor out, List<Tensor> inputs) {
    return DefaultSchedules.forTarget(Target.CUDA, OperatorDef.of(inputs, out), Knobs.defaults());
  }

  private static DeviceOperator op(
      Device device, Tensor out, List<Tensor> inputs, String name, Map<Var, Long> dims) {
    Schedule s =
        DefaultSchedules.forTarget(device.target(), OperatorDef.of(inputs, out), Knobs.defaults());
    List<Tensor> args = new java.util.ArrayList<>(inputs);
    args.add(out);
    return new DeviceOperator(device, s, args, name, dims);
  }
}
