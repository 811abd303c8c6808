package dev.kernelgen.measure;

import static dev.kernelgen.te.TE.FLOAT32;
import static dev.kernelgen.te.TE.compute;
import static dev.kernelgen.te.TE.placeholder;
import static dev.kernelgen.te.TE.shape;
import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.kernelgen.annotations.Target;
import dev.kernelgen.codegen.NativeToolchain;
import dev.kernelgen.runtime.Device;
import dev.kernelgen.runtime.Devices;
import dev.kernelgen.runtime.HostTensor;
import dev.kernelgen.schedule.Schedule;
import dev.kernelgen.schedule.Stage;
import dev.kernelgen.spec.OperatorDef;
import dev.kernelgen.te.Tensor;
import dev.kernelgen.testing.ResidentMemory;
import dev.kernelgen.tune.ConfigSpace;
import dev.kernelgen.tune.Configuration;
import dev.kernelgen.tune.Measurement;
import dev.kernelgen.tune.TuningTask;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.parallel.Isolated;

/** Measuring candidates on a GPU device leaves no host tensor open. */
@Isolated("counts the process's open host tensors and its resident memory")
class DeviceMeasurerLeakTest {
  /** y = x * 3 over n elements, blocks of a tunable size: a GPU task of fixed shape. */
  static TuningTask scaleTask(Target target, int n) {
    Tensor x = placeholder("x", FLOAT32, n);
    Tensor y = compute("y", shape(n), i -> x.at(i).mul(3f));
    OperatorDef def = OperatorDef.of(List.of(x), y);
    return new TuningTask(
        "Test/scale",
        target,
        def,
        knobs -> {
          Schedule s = Schedule.create(def.outputs());
          Stage st = s.stage(y);
          Stage.Split sp = st.split(st.axis(0), knobs.knob("block", 32, 64, 128, 256));
          st.bind(sp.outer(), "blockIdx.x");
          st.bind(sp.inner(), "threadIdx.x");
          return s;
        },
        "scale");
  }

  static List<Configuration> all(ConfigSpace s) {
    List<Configuration> out = new ArrayList<>();
    for (long i = 0; i < s.size(); i++) {
      out.add(s.get(i));
    }
    return out;
  }

  @Test
  void candidatesLeaveNoHostTensorOpen() {
    assumeTrue(Devices.openCl().isPresent(), "no OpenCL device: " + Devices.describe());
    Device cl = Devices.openCl().get();
    TuningTask task = scaleTask(Target.OPENCL, 4096);
    long before = HostTensor.openOwnedTensors();
    try (DeviceMeasurer m = new DeviceMeasurer(cl, NativeToolchain.fromEnvironment(), 2)) {
      for (int round = 0; round < 3; round++) {
        for (Measurement x : m.measure(task, all(task.space()))) {
          assertThat(x.status()).as(x.toString()).isEqualTo(Measurement.Status.OK);
        }
        assertThat(HostTensor.openOwnedTensors()).as("open host tensors").isEqualTo(before);
      }
      assertThat(m.referenceCount()).isEqualTo(1);
      m.close();
      assertThat(m.referenceCount()).isZero();
    }
  }

  /**
   * y = x * 3 with 200 configurations: blocks of 32 to 256 threads, each thread computing 1 to 50
   * elements.
   */
  static TuningTask twoHundredCandidates(Target target, int n) {
    Tensor x = placeholder("x", FLOAT32, n);
    Tensor y = compute("y", shape(n), i -> x.at(i).mul(3f));
    OperatorDef def = OperatorDef.of(List.of(x), y);
    return new TuningTask(
        "Test/scale200",
        target,
        def,
        knobs -> {
          Schedule s = Schedule.create(def.outputs());
          Stage st = s.stage(y);
          int each = knobs.knob("each", java.util.stream.IntStream.rangeClosed(1, 50).toArray());
          Stage.Split rows = st.split(st.axis(0), each);
          Stage.Split sp = st.split(rows.outer(), knobs.knob("block", 32, 64, 128, 256));
          st.bind(sp.outer(), "blockIdx.x");
          st.bind(sp.inner(), "threadIdx.x");
          return s;
        },
        "scale200");
  }

  /**
   * 200 candidates measured in one process on the GPU, with host and device memory flat: the
   * benchmark process that tuned sixteen workloads in a row was killed, most likely for host
   * memory.
   */
  @Test
  void twoHundredCudaCandidatesLeaveHostAndDeviceMemoryFlat() throws Exception {
    assumeTrue(
        Devices.cuda().isPresent(),
        "no CUDA device, skipped: " + Devices.probe(Target.CUDA).detail());
    assumeTrue(NativeToolchain.fromEnvironment().findNvcc().isPresent(), "no nvcc");
    dev.kernelgen.runtime.cuda.CudaDevice gpu = Devices.cuda().get();
    TuningTask task = twoHundredCandidates(Target.CUDA, 1 << 20);
    List<Configuration> configs = all(task.space());
    assertThat(configs).hasSize(200);
    long tensors = HostTensor.openOwnedTensors();
    try (DeviceMeasurer m =
        new DeviceMeasurer(
            gpu, NativeToolchain.fromEnvironment(), Runtime.getRuntime().availableProcessors())) {
      // The first batch warms up the JIT, the driver and the reference data.
      m.measure(task, configs.subList(0, 20));
      long rss = ResidentMemory.afterGc();
      long heap = Runtime.getRuntime().totalMemory();
      long free = gpu.freeMemoryBytes();
      for (int i = 20; i < 200; i += 20) {
        for (Measurement x : m.measure(task, configs.subList(i, i + 20))) {
          assertThat(x.status())
              .as(x.toString())
              .isIn(Measurement.Status.OK, Measurement.Status.INVALID);
        }
      }
      long rssEnd = ResidentMemory.afterGc();
      long heapEnd = Runtime.getRuntime().totalMemory();
      long freeEnd = gpu.freeMemoryBytes();
      // The Java heap's committed size beside the RSS: growth there is the collector's, not a
      // native leak.
      System.out.printf(
          "200 candidates: host RSS %d -> %d MiB (Java heap committed %d -> %d MiB), device free"
              + " %d -> %d MiB%n",
          rss >> 20, rssEnd >> 20, heap >> 20, heapEnd >> 20, free >> 20, freeEnd >> 20);
      assertThat((rssEnd - rss) >> 20).as("host RSS growth, MiB").isLessThanOrEqualTo(64);
      assertThat((free - freeEnd) >> 20).as("device memory growth, MiB").isLessThanOrEqualTo(16);
    }
    assertThat(HostTensor.openOwnedTensors()).isEqualTo(tensors);
  }
}
