package dev.kernelgen.measure;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assumptions.assumeThat;

import dev.kernelgen.annotations.Target;
import dev.kernelgen.codegen.NativeToolchain;
import dev.kernelgen.runtime.java.JavaDevice;
import dev.kernelgen.tune.Configuration;
import dev.kernelgen.tune.Measurement;
import dev.kernelgen.tune.TuneTest;
import dev.kernelgen.tune.TuningTask;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.parallel.Isolated;

/**
 * Runners of different devices measure at the same time, each from its own queue (issue 13: CUDA
 * and the C harness at once); here the C harness and the Java device.
 */
@Isolated("asserts when runs overlap in time")
class ConcurrentRunnersTest {
  /** A runner that records when each of its runs began and ended. */
  private static final class Recording implements Runner {
    final Runner inner;
    final List<long[]> spans = new ArrayList<>();

    Recording(Runner inner) {
      this.inner = inner;
    }

    @Override
    public Target target() {
      return inner.target();
    }

    @Override
    public String deviceName() {
      return inner.deviceName();
    }

    @Override
    public RunResult run(RunnerInput input) {
      long start = System.nanoTime();
      RunResult r = inner.run(input);
      synchronized (spans) {
        spans.add(new long[] {start, System.nanoTime()});
      }
      return r;
    }
  }

  @Test
  void theCHarnessAndTheJavaDeviceMeasureAtTheSameTime() throws Exception {
    NativeToolchain tc = NativeToolchain.fromEnvironment();
    assumeThat(tc.findCc()).as("cc on PATH").isPresent();
    TuningTask c = TuneTest.matmulTask(61);
    TuningTask java = Tasks.on(c, Target.JAVA);
    List<Configuration> configs = DeviceMeasurerLeakTest.all(c.space()).subList(0, 4);
    Recording cRuns = new Recording(new CHarnessRunner());
    Recording javaRuns = new Recording(new DeviceRunner(JavaDevice.instance()));
    try (CHarnessMeasurer cm = new CHarnessMeasurer(tc, 2, 2, 40, 60);
        DeviceMeasurer jm = new DeviceMeasurer(JavaDevice.instance(), tc, 2);
        RunnerQueue cQueue = new RunnerQueue(cRuns);
        RunnerQueue javaQueue = new RunnerQueue(javaRuns)) {
      List<BuildResult> cBuilt = cm.builder().build(c, configs);
      List<BuildResult> javaBuilt = jm.builder().build(java, configs);
      List<Future<RunResult>> results = new ArrayList<>();
      for (int i = 0; i < configs.size(); i++) {
        results.add(cQueue.submit(cm.runnerInput(c, cBuilt.get(i))));
        results.add(javaQueue.submit(jm.runnerInput(java, javaBuilt.get(i))));
      }
      for (Future<RunResult> f : results) {
        RunResult r = f.get();
        assertThat(r.status()).as(r.detail()).isEqualTo(Measurement.Status.OK);
      }
    }
    // Each queue runs one at a time...
    assertThat(overlaps(cRuns.spans, cRuns.spans)).isFalse();
    assertThat(overlaps(javaRuns.spans, javaRuns.spans)).isFalse();
    // ...and the two devices' runs overlap.
    assertThat(overlaps(cRuns.spans, javaRuns.spans)).as("C and Java runs overlap").isTrue();
  }

  /** Two measurers, the C harness and the Java device, each driven by its own tuner thread. */
  @Test
  void twoMeasurersOfDifferentDevicesMeasureFromTwoThreads() throws Exception {
    NativeToolchain tc = NativeToolchain.fromEnvironment();
    assumeThat(tc.findCc()).as("cc on PATH").isPresent();
    TuningTask c = TuneTest.matmulTask(23);
    TuningTask java = Tasks.on(c, Target.JAVA);
    List<Configuration> configs = DeviceMeasurerLeakTest.all(c.space());
    try (CHarnessMeasurer cm = new CHarnessMeasurer(tc, 1, 1, 3, 60);
        DeviceMeasurer jm = new DeviceMeasurer(JavaDevice.instance(), tc, 1);
        var threads = Executors.newFixedThreadPool(2)) {
      Future<List<Measurement>> cs = threads.submit(() -> cm.measure(c, configs));
      Future<List<Measurement>> js = threads.submit(() -> jm.measure(java, configs));
      for (Measurement m : cs.get()) {
        assertThat(m.status()).as(m.toString()).isEqualTo(Measurement.Status.OK);
      }
      for (Measurement m : js.get()) {
        assertThat(m.status()).as(m.toString()).isEqualTo(Measurement.Status.OK);
      }
      assertThat(jm.versions().get(TimingProtocol.VERSION_KEY)).contains("wall clock");
    }
  }

  private static boolean overlaps(List<long[]> a, List<long[]> b) {
    for (long[] x : a) {
      for (long[] y : b) {
        if (x != y && x[0] < y[1] && y[0] < x[1]) {
          return true;
        }
      }
    }
    return false;
  }
}
