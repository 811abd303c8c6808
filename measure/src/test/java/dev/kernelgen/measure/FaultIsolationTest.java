package dev.kernelgen.measure;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assumptions.assumeThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.kernelgen.annotations.Target;
import dev.kernelgen.codegen.NativeToolchain;
import dev.kernelgen.runtime.Device;
import dev.kernelgen.runtime.Devices;
import dev.kernelgen.runtime.java.JavaDevice;
import dev.kernelgen.tune.Measurement;
import dev.kernelgen.tune.TuneTest;
import dev.kernelgen.tune.TuningTask;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.parallel.Execution;
import org.junit.jupiter.api.parallel.ExecutionMode;

/**
 * A candidate that crashes or hangs is a failed measurement with a reason, and the next candidate
 * still measures: in the C harness (a child process), in this JVM behind a timeout, and in a child
 * JVM. Its methods run at once: each mostly waits, for a timeout or a child process.
 */
@Execution(ExecutionMode.CONCURRENT)
class FaultIsolationTest {
  private static final NativeToolchain TC = NativeToolchain.fromEnvironment();
  private static final String MAIN = "int main(int argc, char** argv) {";

  @Test
  void aSegfaultingAndAHangingCHarnessCandidateFailAndTheNextStillMeasures() {
    assumeThat(TC.findCc()).as("cc on PATH").isPresent();
    TuningTask t = TuneTest.matmulTask(8);
    try (CHarnessMeasurer m = new CHarnessMeasurer(TC, 1, 0, 3, 2)) {
      BuildResult good = m.builder().build(t, t.space().get(0));
      assertThat(good.source()).contains(MAIN);
      // The kernel's output written far past its end: a segmentation fault.
      BuildResult crash =
          m.builder()
              .compile(
                  good.withSource(
                      good.source()
                          .replace(MAIN, MAIN + " ((volatile float*) argv[2])[1L << 40] = 1;")));
      BuildResult hang =
          m.builder()
              .compile(
                  good.withSource(
                      good.source().replace(MAIN, MAIN + " for (volatile int s = 1; s;) {}")));
      assertThat(crash.ok()).as(crash.error()).isTrue();
      assertThat(hang.ok()).as(hang.error()).isTrue();
      CHarnessRunner runner = new CHarnessRunner();
      RunResult crashed = runner.run(m.runnerInput(t, crash));
      assertThat(crashed.status()).isEqualTo(Measurement.Status.RUNTIME_ERROR);
      assertThat(crashed.detail()).contains("signal 11");
      RunResult hung = runner.run(m.runnerInput(t, hang));
      assertThat(hung.status()).isEqualTo(Measurement.Status.TIMEOUT);
      assertThat(hung.detail()).contains("within 2 s");
      RunResult next = runner.run(m.runnerInput(t, good));
      assertThat(next.status()).as(next.detail()).isEqualTo(Measurement.Status.OK);
      assertThat(next.timing()).isEqualTo(m.timing());
    }
  }

  @Test
  void aJavaKernelThatHangsTimesOutInThisJvmAndTheNextStillMeasures() {
    TuningTask t = Tasks.on(TuneTest.matmulTask(9), Target.JAVA);
    String release = "kernelgen.test.release." + System.identityHashCode(this);
    try (DeviceMeasurer m = new DeviceMeasurer(JavaDevice.instance(), TC, 1).withTimeout(2);
        DeviceRunner runner = new DeviceRunner(JavaDevice.instance())) {
      BuildResult good = m.builder().build(t, t.space().get(0));
      assertThat(good.ok()).as(good.error()).isTrue();
      String spin = "while (System.getProperty(\"" + release + "\") == null) Thread.onSpinWait();";
      BuildResult hang = m.builder().compile(good.withSource(Tasks.javaKernel("matmul", 3, spin)));
      assertThat(hang.ok()).as(hang.error()).isTrue();
      RunResult hung = runner.run(m.runnerInput(t, hang));
      assertThat(hung.status()).isEqualTo(Measurement.Status.TIMEOUT);
      assertThat(hung.detail()).contains("abandoned");
      // A write far past the output's end: the segment's bounds check, a runtime error.
      BuildResult oob =
          m.builder()
              .compile(
                  good.withSource(
                      Tasks.javaKernel(
                          "matmul",
                          3,
                          "p2.set(java.lang.foreign.ValueLayout.JAVA_FLOAT, 1L << 40, 1f);")));
      RunResult outOfBounds = runner.run(m.runnerInput(t, oob));
      assertThat(outOfBounds.status()).isEqualTo(Measurement.Status.RUNTIME_ERROR);
      assertThat(outOfBounds.detail()).containsIgnoringCase("out of bound");
      RunResult next = runner.run(m.runnerInput(t, good));
      assertThat(next.status()).as(next.detail()).isEqualTo(Measurement.Status.OK);
    } finally {
      // The abandoned kernel ends: the test leaves no spinning thread behind.
      System.setProperty(release, "done");
    }
  }

  @Test
  void aJavaKernelThatHangsOrKillsItsJvmFailsInAChildJvmAndTheNextStillMeasures() {
    TuningTask t = Tasks.on(TuneTest.matmulTask(9), Target.JAVA);
    try (DeviceMeasurer m = new DeviceMeasurer(JavaDevice.instance(), TC, 1).withTimeout(2)) {
      BuildResult good = m.builder().build(t, t.space().get(1));
      BuildResult hang =
          m.builder().compile(good.withSource(Tasks.javaKernel("matmul", 3, "for (;;) {}")));
      BuildResult halt =
          m.builder()
              .compile(
                  good.withSource(
                      Tasks.javaKernel("matmul", 3, "Runtime.getRuntime().halt(134);")));
      ChildJvmRunner runner = new ChildJvmRunner(Target.JAVA, 10, List.of("-Xmx256m"));
      RunResult hung = runner.run(m.runnerInput(t, hang));
      assertThat(hung.status()).isEqualTo(Measurement.Status.TIMEOUT);
      // The candidate's own 2 s, counted once the child had started (not its 10 s start limit).
      assertThat(hung.detail()).contains("did not finish within 2 s").contains("killed");
      RunResult halted = runner.run(m.runnerInput(t, halt));
      assertThat(halted.status()).isEqualTo(Measurement.Status.RUNTIME_ERROR);
      assertThat(halted.detail()).contains("exit 134");
      RunResult next = new ChildJvmRunner(Target.JAVA).run(m.runnerInput(t, good));
      assertThat(next.status()).as(next.detail()).isEqualTo(Measurement.Status.OK);
      assertThat(next.medianUs()).isPositive();
    }
  }

  @Test
  void openClCandidatesMeasureInAChildJvmAndOneThatHangsIsKilled() {
    assumeTrue(Devices.openCl().isPresent(), "no OpenCL device: " + Devices.describe());
    gpuCandidatesInAChildJvm(
        Devices.openCl().get(),
        "__kernel void ",
        "__global float* p",
        "volatile __global int* v = (volatile __global int*)p0;");
  }

  /** On the GPU machine: {@code -Dtest=FaultIsolationTest#cudaCandidates*}. */
  @Test
  void cudaCandidatesMeasureInAChildJvmAndOneThatHangsIsKilled() {
    assumeTrue(
        Devices.cuda().isPresent(),
        "no CUDA device, skipped: " + Devices.probe(Target.CUDA).detail());
    assumeTrue(TC.findNvcc().isPresent(), "no nvcc, skipped");
    gpuCandidatesInAChildJvm(
        Devices.cuda().get(),
        "extern \"C\" __global__ void ",
        "float* p",
        "volatile int* v = (volatile int*)p0;");
  }

  /**
   * The scale task's candidates (ragged: 1000 elements in blocks of 32 to 256) measure OK in this
   * JVM and in a child JVM; a hand-made kernel that spins forever is killed with its child JVM, and
   * the next candidate measures.
   */
  private static void gpuCandidatesInAChildJvm(
      Device device, String kernel, String pointer, String volatileView) {
    TuningTask t = DeviceMeasurerLeakTest.scaleTask(device.target(), 1000);
    try (DeviceMeasurer inProcess = new DeviceMeasurer(device, TC, 2);
        DeviceMeasurer child = new DeviceMeasurer(device, TC, 2).inChildJvm().withTimeout(5)) {
      var all = DeviceMeasurerLeakTest.all(t.space());
      for (Measurement x : inProcess.measure(t, all)) {
        assertThat(x.status()).as(x.toString()).isEqualTo(Measurement.Status.OK);
      }
      for (Measurement x : child.measure(t, all.subList(0, 2))) {
        assertThat(x.status()).as(x.toString()).isEqualTo(Measurement.Status.OK);
      }
      BuildResult good = child.builder().build(t, all.get(0));
      KernelLaunch k = good.kernels().get(0);
      StringBuilder params = new StringBuilder();
      for (int i = 0; i < k.params(); i++) {
        params.append(i == 0 ? "" : ", ").append(pointer).append(i);
      }
      // The loop rereads memory that never changes. A loop over a volatile local came back WRONG
      // instead of hanging on the H200: nvcc keeps that local in a register (its PTX loop has no
      // load), which ptxas may then drop; a volatile global load it must keep.
      String spin =
          kernel
              + k.name()
              + "("
              + params
              + ") { "
              + volatileView
              + " int x = v[0]; while (v[0] == x) {} }\n";
      BuildResult hang = child.builder().compile(good.withSource(spin));
      assertThat(hang.ok()).as(hang.error()).isTrue();
      RunResult hung =
          new ChildJvmRunner(device.target(), 10, List.of()).run(child.runnerInput(t, hang));
      assertThat(hung.status()).as(hung.detail()).isEqualTo(Measurement.Status.TIMEOUT);
      assertThat(hung.detail()).contains("did not finish within 5 s").contains("killed");
      assertThat(child.measure(t, all.subList(2, 3)).get(0).status())
          .isEqualTo(Measurement.Status.OK);
    }
  }
}
