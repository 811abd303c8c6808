package dev.kernelgen.maven.launcher;

import static org.assertj.core.api.Assertions.assertThat;

import dev.kernelgen.annotations.Target;
import dev.kernelgen.runtime.DataType;
import dev.kernelgen.runtime.Device;
import dev.kernelgen.runtime.Devices;
import dev.kernelgen.runtime.HostTensor;
import dev.kernelgen.runtime.cpu.CpuDevice;
import dev.kernelgen.runtime.cuda.CudaDevice;
import dev.kernelgen.runtime.java.JavaDevice;
import dev.kernelgen.runtime.launch.DeviceTensor;
import dev.kernelgen.runtime.opencl.OpenClDevice;
import dev.kernelgen.testing.ResidentMemory;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Eight threads call generated launchers for a minute on every backend this machine has (C, Java,
 * OpenCL; CUDA where there is a GPU) with random valid and invalid arguments, while another thread
 * closes each backend's device and opens a new one. Nothing may crash; every valid call computes
 * the right values; every invalid call throws the documented exception ({@link
 * IllegalArgumentException} for shapes, dtypes and aliasing, {@link IllegalStateException} for a
 * closed tensor, launcher or device); and resident memory stays flat: at most {@value
 * #RSS_BOUND_MIB} MiB above its level after the warm-up, with every host tensor freed.
 *
 * <p>Its length is its point, so it is tagged {@code soak}, which {@code ./mvnw verify} leaves out:
 * CI ({@code .ci/run}) runs it in a step of its own after the build, {@code ./mvnw -Psoak -pl
 * maven-plugin -am test}, where nothing else runs beside it to disturb its resident memory. {@code
 * -Dkernelgen.soak.seconds=10} shortens it for a local run; CI runs the full minute.
 */
@Tag("soak")
class SoakTest {
  static final String SECONDS_PROPERTY = "kernelgen.soak.seconds";
  static final int THREADS = 8;
  static final long RSS_BOUND_MIB = 64;

  @TempDir static Path tmp;
  static CompiledLauncher two;
  static CompiledLauncher math;
  static final List<Target> TARGETS = new ArrayList<>();

  static final Class<?>[] HOST2 = {HostTensor.class, HostTensor.class};
  static final Class<?>[] DEVICE2 = {DeviceTensor.class, DeviceTensor.class};

  @BeforeAll
  static void build() throws Exception {
    TARGETS.addAll(List.of(Target.C, Target.JAVA));
    if (Devices.openCl().isPresent()) {
      TARGETS.add(Target.OPENCL);
    } else {
      System.out.println("soak: no OpenCL device, skipped: " + Devices.probe(Target.OPENCL));
    }
    if (Devices.cuda().isPresent()) {
      TARGETS.add(Target.CUDA);
    } else {
      System.out.println("soak: no CUDA device, CUDA skipped: " + Devices.probe(Target.CUDA));
    }
    Target[] ts = TARGETS.toArray(Target[]::new);
    two =
        CompiledLauncher.build(TestSpecs.TwoKernelsSpec.class, "TwoKernels", tmp.resolve("t"), ts);
    math = CompiledLauncher.build(TestSpecs.MathSpec.class, "MathKernels", tmp.resolve("m"), ts);
  }

  /** A device of the caller's own with both launchers loaded on it. */
  record Loaded(Device device, AutoCloseable two, AutoCloseable math) {
    static Loaded open(Target t) throws Throwable {
      Device d =
          switch (t) {
            case C -> CpuDevice.create();
            case JAVA -> JavaDevice.create();
            case OPENCL -> OpenClDevice.open(Devices.openCl().get().deviceName()).orElseThrow();
            case CUDA -> CudaDevice.open(Devices.cuda().get().ordinal());
          };
      return new Loaded(d, SoakTest.two.load(d), SoakTest.math.load(d));
    }

    void close() throws Exception {
      two.close();
      math.close();
      device.close();
    }
  }

  /** One backend: the device in use, replaced now and then while the workers call it. */
  static final class Slot {
    final Target target;
    volatile Loaded current;

    Slot(Target target) throws Throwable {
      this.target = target;
      this.current = Loaded.open(target);
    }

    void reopen() throws Throwable {
      Loaded old = current;
      current = Loaded.open(target);
      old.close();
    }
  }

  enum Case {
    REVERSE_PLUS(null),
    ROW_SUM(null),
    DEVICE_TENSORS(null),
    WRONG_SHAPE(IllegalArgumentException.class),
    WRONG_DTYPE(IllegalArgumentException.class),
    WRONG_RANK(IllegalArgumentException.class),
    ALIASED(IllegalArgumentException.class),
    CLOSED_TENSOR(IllegalStateException.class);

    final Class<? extends Throwable> expected;

    Case(Class<? extends Throwable> expected) {
      this.expected = expected;
    }
  }

  @Test
  void threadsCallLaunchersWithValidAndInvalidShapesWhileDevicesCloseAndReopen() throws Throwable {
    long seconds = Long.getLong(SECONDS_PROPERTY, 60);
    List<Slot> slots = new ArrayList<>();
    for (Target t : TARGETS) {
      slots.add(new Slot(t));
    }
    long tensorsBefore = HostTensor.openOwnedTensors();
    ConcurrentLinkedQueue<String> failures = new ConcurrentLinkedQueue<>();
    AtomicLong valid = new AtomicLong();
    AtomicLong rejected = new AtomicLong();
    AtomicLong closedUnder = new AtomicLong();
    AtomicLong reopened = new AtomicLong();
    long start = System.nanoTime();
    long deadline = start + seconds * 1_000_000_000L;
    List<Thread> workers = new ArrayList<>();
    for (int w = 0; w < THREADS; w++) {
      Random rnd = new Random(1000 + w);
      workers.add(
          Thread.ofPlatform()
              .name("soak-" + w)
              .start(
                  () -> {
                    while (System.nanoTime() < deadline && failures.size() < 20) {
                      Slot s = slots.get(rnd.nextInt(slots.size()));
                      Loaded l = s.current;
                      Case c = Case.values()[rnd.nextInt(Case.values().length)];
                      Throwable thrown = null;
                      try {
                        call(l, c, rnd);
                      } catch (Throwable e) {
                        thrown = e;
                      }
                      String verdict = judge(c, thrown, l, s);
                      switch (verdict) {
                        case "valid" -> valid.incrementAndGet();
                        case "rejected" -> rejected.incrementAndGet();
                        case "closed" -> closedUnder.incrementAndGet();
                        default -> failures.add(s.target + " " + c + ": " + verdict);
                      }
                    }
                  }));
    }
    Thread reopener =
        Thread.ofPlatform()
            .name("soak-reopen")
            .start(
                () -> {
                  Random rnd = new Random(7);
                  while (System.nanoTime() < deadline - 500_000_000L && failures.size() < 20) {
                    try {
                      Thread.sleep(seconds >= 30 ? 2000 : 700);
                      slots.get(rnd.nextInt(slots.size())).reopen();
                      reopened.incrementAndGet();
                    } catch (Throwable e) {
                      failures.add("reopening: " + e);
                    }
                  }
                });
    // Resident memory once the JIT, the kernels and the pools have warmed up.
    long warmNanos = Math.max(3_000_000_000L, seconds * 1_000_000_000L / 4);
    Thread.sleep(warmNanos / 1_000_000);
    long warm = ResidentMemory.afterGc();
    long peak = warm;
    while (System.nanoTime() < deadline) {
      Thread.sleep(500);
      peak = Math.max(peak, ResidentMemory.now());
    }
    for (Thread t : workers) {
      t.join();
    }
    reopener.join();
    for (Slot s : slots) {
      s.current.close();
    }
    long end = ResidentMemory.afterGc();
    String summary =
        String.format(
            "soak %d s on %s: %d valid calls, %d invalid ones rejected, %d closed under the call,"
                + " %d reopens; RSS after warm-up %d MiB, peak %d MiB, end %d MiB",
            seconds,
            TARGETS,
            valid.get(),
            rejected.get(),
            closedUnder.get(),
            reopened.get(),
            warm >> 20,
            peak >> 20,
            end >> 20);
    System.out.println(summary);
    assertThat(failures).as(summary).isEmpty();
    assertThat(valid.get()).as(summary).isPositive();
    assertThat(rejected.get()).as(summary).isPositive();
    assertThat(reopened.get()).as(summary).isPositive();
    assertThat(HostTensor.openOwnedTensors()).as("host tensors left open").isEqualTo(tensorsBefore);
    assertThat((end - warm) >> 20).as(summary).isLessThanOrEqualTo(RSS_BOUND_MIB);
  }

  /** "valid", "rejected", "closed" or why the outcome is wrong. */
  static String judge(Case c, Throwable thrown, Loaded l, Slot s) {
    if (thrown instanceof IllegalStateException e
        && String.valueOf(e.getMessage()).endsWith("was closed")
        && !e.getMessage().startsWith("HostTensor")
        && s.current != l) {
      return "closed"; // the reopener closed this device while the call ran: documented
    }
    if (c.expected == null) {
      return thrown == null ? "valid" : "threw " + stack(thrown);
    }
    if (thrown == null) {
      return "an invalid call did not throw";
    }
    return c.expected.isInstance(thrown)
        ? "rejected"
        : "threw " + stack(thrown) + " instead of " + c.expected.getSimpleName();
  }

  static void call(Loaded l, Case c, Random rnd) throws Throwable {
    int n = 1 + rnd.nextInt(3000);
    switch (c) {
      case REVERSE_PLUS -> {
        float[] xs = values(rnd, n);
        try (HostTensor x = HostTensor.of(xs, n);
            HostTensor y = HostTensor.zeros(DataType.FLOAT32, n)) {
          two.call(l.two(), "reversePlus", HOST2, x, y);
          check(y.toFloatArray(), LauncherSafetyTest.reversePlus(xs));
        }
      }
      case ROW_SUM -> {
        int rows = 1 + rnd.nextInt(64);
        int cols = rnd.nextBoolean() ? 4 : 1 + rnd.nextInt(64); // 4: the specialized kernel
        float[] xs = values(rnd, rows * cols);
        try (HostTensor x = HostTensor.of(xs, rows, cols);
            HostTensor y = HostTensor.zeros(DataType.FLOAT32, rows)) {
          math.call(l.math(), "rowSum", HOST2, x, y);
          check(y.toFloatArray(), GeneratedLauncherRunTest.expected(xs, rows, cols));
        }
      }
      case DEVICE_TENSORS -> {
        float[] xs = values(rnd, n);
        try (HostTensor x = HostTensor.of(xs, n);
            DeviceTensor dx = DeviceTensor.upload(l.device(), x);
            DeviceTensor dy = DeviceTensor.allocate(l.device(), DataType.FLOAT32, n)) {
          two.call(l.two(), "reversePlus", DEVICE2, dx, dy);
          try (HostTensor y = dy.toHost()) {
            check(y.toFloatArray(), LauncherSafetyTest.reversePlus(xs));
          }
        }
      }
      case WRONG_SHAPE -> {
        try (HostTensor x = HostTensor.zeros(DataType.FLOAT32, n);
            HostTensor y = HostTensor.zeros(DataType.FLOAT32, n + 1 + rnd.nextInt(5))) {
          two.call(l.two(), "reversePlus", HOST2, x, y);
        }
      }
      case WRONG_DTYPE -> {
        try (HostTensor x = HostTensor.zeros(DataType.INT32, n);
            HostTensor y = HostTensor.zeros(DataType.FLOAT32, n)) {
          two.call(l.two(), "reversePlus", HOST2, x, y);
        }
      }
      case WRONG_RANK -> {
        try (HostTensor x = HostTensor.zeros(DataType.FLOAT32, n);
            HostTensor y = HostTensor.zeros(DataType.FLOAT32, n)) {
          math.call(l.math(), "rowSum", HOST2, x, y);
        }
      }
      case ALIASED -> {
        try (HostTensor x = HostTensor.zeros(DataType.FLOAT32, 2 * n)) {
          int off = rnd.nextInt(n); // overlapping windows of the same memory
          try (HostTensor a = HostTensor.wrap(DataType.FLOAT32, x.segment().asSlice(0, 4L * n), n);
              HostTensor b =
                  HostTensor.wrap(DataType.FLOAT32, x.segment().asSlice(4L * off, 4L * n), n)) {
            two.call(l.two(), "reversePlus", HOST2, a, b);
          }
        }
      }
      case CLOSED_TENSOR -> {
        HostTensor x = HostTensor.zeros(DataType.FLOAT32, n);
        x.close();
        try (HostTensor y = HostTensor.zeros(DataType.FLOAT32, n)) {
          two.call(l.two(), "reversePlus", HOST2, x, y);
        }
      }
    }
  }

  static float[] values(Random rnd, int n) {
    float[] xs = new float[n];
    for (int i = 0; i < n; i++) {
      xs[i] = rnd.nextInt(200) * 0.25f - 25f; // exact in float: sums compare exactly
    }
    return xs;
  }

  static void check(float[] got, float[] expected) {
    if (!java.util.Arrays.equals(got, expected)) {
      throw new AssertionError(
          "wrong values: got "
              + java.util.Arrays.toString(java.util.Arrays.copyOf(got, Math.min(8, got.length)))
              + "..., expected "
              + java.util.Arrays.toString(
                  java.util.Arrays.copyOf(expected, Math.min(8, expected.length))));
    }
  }

  static String stack(Throwable t) {
    StringBuilder sb = new StringBuilder(t.toString());
    for (StackTraceElement e : t.getStackTrace()) {
      if (sb.length() > 1500) {
        break;
      }
      sb.append("\n    at ").append(e);
    }
    return sb.toString();
  }
}
