package dev.kernelgen.topi;

import static dev.kernelgen.te.TE.FLOAT32;
import static dev.kernelgen.te.TE.placeholder;

import dev.kernelgen.schedule.Schedule;
import dev.kernelgen.spec.Knobs;
import dev.kernelgen.te.Tensor;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Small ragged instances of the library's GPU schedules, for the tests that compile and run them on
 * a device; {@link OpSchedules} is their public entry.
 */
final class GpuScheduleSamples {
  private GpuScheduleSamples() {}

  /** Small ragged instances of the GPU schedules here, by name: for the compile and run tests. */
  static Map<String, Schedule> gpuSamples() {
    Map<String, Schedule> m = new LinkedHashMap<>();
    Knobs small =
        Knobs.configured(
            Map.of(
                "threads_y",
                8,
                "threads_x",
                8,
                "thread_tile_y",
                2,
                "thread_tile_x",
                2,
                "tile_k",
                4));
    Tensor a = placeholder("A", FLOAT32, 37, 29);
    Tensor b = placeholder("B", FLOAT32, 29, 45);
    m.put("matmul_gpu_default", MatmulSchedules.matmulGpu(Linalg.matmul(a, b), Knobs.defaults()));
    m.put("matmul_gpu_small", MatmulSchedules.matmulGpu(Linalg.matmul(a, b), small));
    Tensor bias = placeholder("BiasRow", FLOAT32, 45);
    m.put(
        "matmul_bias_relu_gpu",
        MatmulSchedules.matmulGpu(
            Elementwise.relu(Elementwise.add(Linalg.matmul(a, b), bias)), small));
    Tensor in = placeholder("Input", FLOAT32, 2, 5, 11, 9);
    Tensor f = placeholder("Filter", FLOAT32, 6, 5, 3, 3);
    Tensor cb = placeholder("ConvBias", FLOAT32, 6, 1, 1);
    Tensor conv = Conv.conv2dNchw(in, f, 1, 1, Padding.same(11, 9, 3, 3, 1, 1, 1), 1);
    // Tiles that do not divide the shape: 6 channels in tiles of 4 and 8, 11 x 9 pixels in tiles
    // of 4 x 4, 2 x 8 and 8 x 28; 5 input channels in chunks of 2 and 4.
    m.put(
        "conv2d_gpu", Conv2dSchedules.conv2dGpu(conv, Conv2dSchedules.convKnobs(4, 1, 2, 2, 4, 2)));
    m.put("conv2d_gpu_default", Conv2dSchedules.conv2dGpu(conv, Knobs.defaults()));
    m.put(
        "conv2d_gpu_wide",
        Conv2dSchedules.conv2dGpu(conv, Conv2dSchedules.convKnobs(2, 4, 1, 2, 8, 4)));
    m.put(
        "conv2d_gpu_tall",
        Conv2dSchedules.conv2dGpu(conv, Conv2dSchedules.convKnobs(8, 1, 8, 1, 28, 16)));
    m.put(
        "conv2d_bias_relu_gpu",
        Conv2dSchedules.conv2dGpu(
            Elementwise.relu(Elementwise.add(conv, cb)),
            Conv2dSchedules.convKnobs(4, 1, 2, 2, 4, 2)));
    Tensor strided = Conv.conv2dNchw(in, f, 2, 2, Padding.same(11, 9, 3, 3, 2, 2, 1), 1);
    m.put(
        "conv2d_stride2_gpu",
        Conv2dSchedules.conv2dGpu(strided, Conv2dSchedules.convKnobs(2, 2, 2, 2, 4, 4)));
    Tensor valid = Conv.conv2dNchw(in, f, 1, 1, Padding.valid(), 1);
    m.put(
        "conv2d_valid_gpu",
        Conv2dSchedules.conv2dGpu(valid, Conv2dSchedules.convKnobs(4, 2, 4, 1, 8, 1)));
    Tensor x = placeholder("X", FLOAT32, 45, 67);
    m.put(
        "softmax_lanes_gpu", RowReductionSchedules.softmaxLanesGpu(Reduction.softmaxLanes(x, 32)));
    m.put(
        "softmax_rows_gpu",
        RowReductionSchedules.rowsGpu(
            Reduction.softmax(x, 1), Knobs.configured(Map.of("rows_per_block", 32))));
    return m;
  }

  /** The arguments of a sample schedule: its inputs, then its outputs. */
  static List<Tensor> args(Schedule s) {
    List<Tensor> a = new java.util.ArrayList<>(s.inputs());
    a.addAll(s.outputs());
    return a;
  }
}
