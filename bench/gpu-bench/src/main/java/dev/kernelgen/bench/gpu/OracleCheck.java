package dev.kernelgen.bench.gpu;

import dev.kernelgen.eval.NDArray;
import dev.kernelgen.eval.TensorInterpreter;
import dev.kernelgen.runtime.DataType;
import dev.kernelgen.runtime.Device;
import dev.kernelgen.runtime.DeviceBuffer;
import dev.kernelgen.runtime.HostTensor;
import dev.kernelgen.schedule.Schedule;
import dev.kernelgen.te.Tensor;
import dev.kernelgen.te.Var;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** Runs a scheduled operator on a GPU device and compares its outputs with the oracle. */
public final class OracleCheck {
  private OracleCheck() {}

  /**
   * Compiles {@code s} for {@code device}, runs it once on random inputs and returns null when
   * every output is within tolerance of the tensor-expression oracle, else the difference.
   */
  public static String check(Device device, Schedule s, List<Tensor> args, String name) {
    Map<Var, Long> dims = Map.of();
    Map<Tensor, NDArray> inputs = new LinkedHashMap<>();
    long seed = 11;
    for (Tensor t : args) {
      if (!s.outputs().contains(t)) {
        inputs.put(t, NDArray.random(t.dtype(), seed++, shape(t)));
      }
    }
    Map<Tensor, NDArray> expected = TensorInterpreter.evaluate(s.outputs(), inputs, dims);
    try (DeviceOperator op = new DeviceOperator(device, s, args, name, dims)) {
      List<DeviceBuffer> buffers = new ArrayList<>();
      Map<Tensor, DeviceBuffer> outs = new LinkedHashMap<>();
      for (Tensor t : args) {
        long count = count(t);
        DeviceBuffer b = device.allocate(DataType.valueOf(t.dtype().name()), count);
        NDArray in = inputs.get(t);
        if (in != null) {
          b.copyFromHost(HostTensor.wrap(b.dtype(), in.segment(), in.shape()));
        } else {
          outs.put(t, b);
        }
        buffers.add(b);
      }
      op.launch(buffers);
      device.synchronize();
      String diff = null;
      for (var e : outs.entrySet()) {
        NDArray got = NDArray.zeros(e.getKey().dtype(), shape(e.getKey()));
        e.getValue().copyToHost(HostTensor.wrap(e.getValue().dtype(), got.segment(), got.shape()));
        String d = NDArray.compare(expected.get(e.getKey()), got, 1e-4, 1e-4);
        if (d != null && diff == null) {
          diff = e.getKey().name() + ": " + d + "\n" + op.source();
        }
      }
      buffers.forEach(DeviceBuffer::close);
      return diff;
    }
  }

  static long[] shape(Tensor t) {
    long[] s = new long[t.ndim()];
    for (int d = 0; d < s.length; d++) {
      s[d] = DeviceOperator.eval(t.shape().get(d), Map.of());
    }
    return s;
  }

  static long count(Tensor t) {
    long n = 1;
    for (long d : shape(t)) {
      n *= d;
    }
    return n;
  }
}
