package dev.kernelgen.maven.launcher;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.kernelgen.annotations.Target;
import dev.kernelgen.runtime.DataType;
import dev.kernelgen.runtime.Device;
import dev.kernelgen.runtime.Devices;
import dev.kernelgen.runtime.HostTensor;
import dev.kernelgen.runtime.launch.DeviceTensor;
import dev.kernelgen.runtime.launch.Workspace;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Generated launchers under careless use: after close, with outputs aliasing inputs, closed while
 * other threads call them, and with temporaries that must come from the launcher's workspace.
 */
class LauncherSafetyTest {
  @TempDir static Path tmp;
  static CompiledLauncher math;
  static CompiledLauncher two;
  static CompiledLauncher broadcast;

  static final Class<?>[] HOST2 = {HostTensor.class, HostTensor.class};
  static final Class<?>[] DEVICE2 = {DeviceTensor.class, DeviceTensor.class};

  @BeforeAll
  static void build() throws Exception {
    math =
        CompiledLauncher.build(
            TestSpecs.MathSpec.class, "MathKernels", tmp.resolve("math"), targets());
    two =
        CompiledLauncher.build(
            TestSpecs.TwoKernelsSpec.class, "TwoKernels", tmp.resolve("two"), targets());
    broadcast =
        CompiledLauncher.build(
            TestSpecs.BroadcastSpec.class, "BroadcastKernels", tmp.resolve("bc"), targets());
  }

  /** C, Java, OpenCL, and CUDA where nvcc is found: every device {@link #devices()} lists. */
  static Target[] targets() {
    List<Target> ts = new ArrayList<>(List.of(Target.C, Target.JAVA, Target.OPENCL));
    if (dev.kernelgen.codegen.NativeToolchain.fromEnvironment().findNvcc().isPresent()) {
      ts.add(Target.CUDA);
    }
    return ts.toArray(Target[]::new);
  }

  static List<Device> devices() {
    List<Device> ds = new ArrayList<>(List.of(Devices.java()));
    Devices.cpu().ifPresent(ds::add);
    Devices.openCl().ifPresent(ds::add);
    Devices.cuda().ifPresent(ds::add);
    return ds;
  }

  static float[] reversePlus(float[] x) {
    float[] y = new float[x.length];
    for (int i = 0; i < x.length; i++) {
      y[i] = x[x.length - 1 - i] * 2f + 1f;
    }
    return y;
  }

  static float[] ramp(int n, float offset) {
    float[] x = new float[n];
    for (int i = 0; i < n; i++) {
      x[i] = i * 0.25f + offset;
    }
    return x;
  }

  @Test
  void aClosedLauncherThrowsNamingItOnEveryDevice() throws Throwable {
    for (Device d : devices()) {
      AutoCloseable k = math.load(d);
      try (HostTensor x = HostTensor.of(ramp(6, 0), 2, 3);
          HostTensor out = HostTensor.zeros(DataType.FLOAT32, 2)) {
        math.call(k, "rowSum", HOST2, x, out);
        k.close();
        k.close(); // twice is fine
        String closed = "launcher MathKernels on " + d.name() + " was closed";
        assertThatThrownBy(() -> math.call(k, "rowSum", HOST2, x, out))
            .as(d.name())
            .isInstanceOf(IllegalStateException.class)
            .hasMessage(closed);
        assertThatThrownBy(
                () -> math.call(k, "allocateRowSumOutput", new Class<?>[] {HostTensor.class}, x))
            .isInstanceOf(IllegalStateException.class)
            .hasMessage(closed);
      }
    }
  }

  @Test
  void aReadPastItsTensorOverDimsWrittenApartIsRefusedBeforeTheLaunch() throws Throwable {
    // A new user's broadcast: b [k] read at every column of a [n, m]. Launched with k = 1 and m =
    // 10^8 the C and OpenCL kernels killed the JVM (SIGSEGV); with m = 16 they returned garbage.
    Class<?>[] host3 = {HostTensor.class, HostTensor.class, HostTensor.class};
    for (Device d : devices()) {
      try (AutoCloseable k = broadcast.load(d);
          HostTensor a = HostTensor.of(ramp(32, 0), 2, 16);
          HostTensor shortB = HostTensor.of(ramp(1, 5), 1);
          HostTensor b = HostTensor.of(ramp(20, 5), 20);
          HostTensor y = HostTensor.zeros(DataType.FLOAT32, 2, 16)) {
        assertThatThrownBy(() -> broadcast.call(k, "rowPlus", host3, a, shortB, y))
            .as(d.name())
            .isInstanceOf(IllegalArgumentException.class)
            .hasMessage(
                "rowPlus: compute 'Y' reads b[j]: index 0 of 'b' runs 0..(m - 1), past dim 0 = k"
                    + " (n = 2, m = 16, k = 1)");
        broadcast.call(k, "rowPlus", host3, a, b, y); // k = 20 >= m: reads inside b
        float[] out = y.toFloatArray();
        assertThat(out[17]).isEqualTo(ramp(32, 0)[17] + ramp(20, 5)[1]);
      }
    }
  }

  @Test
  void nullArgumentsAndOutputsTooSmallToExistAreNamed() throws Throwable {
    Class<?>[] host3 = {HostTensor.class, HostTensor.class, HostTensor.class};
    CompiledLauncher window =
        CompiledLauncher.build(
            TestSpecs.WindowSpec.class, "WindowKernels", tmp.resolve("win"), Target.JAVA);
    try (AutoCloseable k = broadcast.load(Devices.java());
        AutoCloseable w = window.load(Devices.java());
        HostTensor a = HostTensor.of(ramp(4, 0), 2, 2);
        HostTensor one = HostTensor.of(ramp(1, 0), 1)) {
      assertThatThrownBy(() -> broadcast.call(k, "rowPlus", host3, a, null, a))
          .isInstanceOf(NullPointerException.class)
          .hasMessage("rowPlus: argument 'b' is null");
      HostTensor closed = HostTensor.of(ramp(3, 0), 3);
      closed.close();
      assertThatThrownBy(
              () ->
                  window.call(
                      w, "allocateWindow3Output", new Class<?>[] {HostTensor.class}, closed))
          .isInstanceOf(IllegalStateException.class)
          .hasMessageStartingWith("window3: argument 'x' (")
          .hasMessageEndingWith(") was closed");
      // A closed device tensor too (it allocated from the shape it kept).
      DeviceTensor closedOnDevice = DeviceTensor.upload(Devices.java(), one);
      closedOnDevice.close();
      assertThatThrownBy(
              () ->
                  window.call(
                      w,
                      "allocateWindow3Output",
                      new Class<?>[] {DeviceTensor.class},
                      closedOnDevice))
          .isInstanceOf(IllegalStateException.class)
          .hasMessageStartingWith("window3: argument 'x' (DeviceTensor[")
          .hasMessageEndingWith(") was closed");
      assertThatThrownBy(
              () -> window.call(w, "allocateWindow3Output", new Class<?>[] {HostTensor.class}, one))
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessage(
              "window3: output 'W' would have (n - 2) = -1 elements at dim 0: the inputs are too"
                  + " small for it");
    }
  }

  @Test
  void anIndexReadFromATensorOutsideItsTableThrowsOnEveryTarget() throws Throwable {
    // A row index of 10^9 into a table of 5 rows: the C kernel read past the buffer, and so did
    // the OpenCL kernel (on PoCL's CPU device a SIGSEGV of the JVM); on CUDA the context died
    // (CUDA_ERROR_ILLEGAL_ADDRESS); the Java kernel threw the segment's IndexOutOfBoundsException,
    // naming no kernel. A valid call after the error computes the right rows.
    CompiledLauncher emb =
        CompiledLauncher.build(
            TestSpecs.EmbeddingSpec.class, "EmbeddingKernels", tmp.resolve("emb"), targets());
    Class<?>[] host3 = {HostTensor.class, HostTensor.class, HostTensor.class};
    for (Device d : devices()) {
      for (String op : List.of("lookup", "lookupAny")) {
        try (AutoCloseable k = emb.load(d);
            HostTensor table = HostTensor.of(ramp(15, 0), 5, 3);
            HostTensor bad = HostTensor.of(new int[] {4, 1_000_000_000, 0, 1}, 4);
            HostTensor negative = HostTensor.of(new int[] {4, 2, -1, 1}, 4);
            HostTensor ids = HostTensor.of(new int[] {4, 2, 0, 1}, 4);
            HostTensor rows = HostTensor.zeros(DataType.FLOAT32, 4, 3)) {
          for (HostTensor wrong : List.of(bad, negative)) {
            assertThatThrownBy(() -> emb.call(k, op, host3, table, wrong, rows))
                .as(d.name() + " " + op)
                .isInstanceOf(dev.kernelgen.runtime.DeviceException.class)
                .hasMessageContaining(
                    d.target() == Target.CUDA || d.target() == Target.OPENCL
                        ? op + " on " + d.name()
                        : "kernel " + op)
                .hasMessageContaining(
                    "an index read from a tensor is outside the tensor it indexes");
          }
          emb.call(k, op, host3, table, ids, rows);
          float[] t = table.toFloatArray();
          float[] want = new float[12];
          int[] at = {4, 2, 0, 1};
          for (int i = 0; i < 4; i++) {
            System.arraycopy(t, at[i] * 3, want, i * 3, 3);
          }
          assertThat(rows.toFloatArray()).as(d.name() + " " + op).containsExactly(want);
        }
      }
    }
  }

  @Test
  void anIntegerDivisionByZeroReadFromATensorThrowsOnEveryTarget() throws Throwable {
    // A divisor of 0 read from a tensor: SIGFPE in the C kernel (a crash of the JVM; checked since
    // the twenty-third session); undefined in OpenCL C and CUDA (PoCL gave a value without a word);
    // an ArithmeticException naming no kernel in Java. INT_MIN by -1 traps on x86: it wraps.
    CompiledLauncher div =
        CompiledLauncher.build(
            TestSpecs.DivideSpec.class, "DivideKernels", tmp.resolve("div"), targets());
    Class<?>[] host4 = {HostTensor.class, HostTensor.class, HostTensor.class, HostTensor.class};
    int[] xs = {7, -7, 7, -7, 5, Integer.MIN_VALUE, Integer.MIN_VALUE, 0, 12};
    int[] ds = {2, 2, -2, -2, 1, -1, 3, 5, 4};
    int[] zero = ds.clone();
    zero[4] = 0;
    for (Device d : devices()) {
      try (AutoCloseable k = div.load(d);
          HostTensor x = HostTensor.of(xs, 9);
          HostTensor bad = HostTensor.of(zero, 9);
          HostTensor good = HostTensor.of(ds, 9);
          HostTensor q = HostTensor.zeros(DataType.INT32, 9);
          HostTensor r = HostTensor.zeros(DataType.INT32, 9)) {
        assertThatThrownBy(() -> div.call(k, "divide", host4, x, bad, q, r))
            .as(d.name())
            .isInstanceOf(dev.kernelgen.runtime.DeviceException.class)
            .hasMessageContaining("integer division by zero");
        div.call(k, "divide", host4, x, good, q, r);
        for (int i = 0; i < 9; i++) {
          assertThat(q.toIntArray()[i])
              .as("%s: %d floordiv %d", d.name(), xs[i], ds[i])
              .isEqualTo(Math.floorDiv(xs[i], ds[i]));
          assertThat(r.toIntArray()[i])
              .as("%s: %d floormod %d", d.name(), xs[i], ds[i])
              .isEqualTo(Math.floorMod(xs[i], ds[i]));
        }
      }
    }
  }

  @Test
  void outputsAliasingInputsAreRejectedNamingBoth() throws Throwable {
    for (Device d : devices()) {
      try (AutoCloseable k = two.load(d);
          HostTensor x = HostTensor.of(ramp(8, 1), 8);
          HostTensor first = HostTensor.wrap(DataType.FLOAT32, x.segment().asSlice(0, 16), 4);
          HostTensor shifted = HostTensor.wrap(DataType.FLOAT32, x.segment().asSlice(8, 16), 4);
          HostTensor apart = HostTensor.wrap(DataType.FLOAT32, x.segment().asSlice(16, 16), 4)) {
        assertThatThrownBy(() -> two.call(k, "reversePlus", HOST2, x, x))
            .as(d.name())
            .isInstanceOf(IllegalArgumentException.class)
            .hasMessage(
                "reversePlus: output 'out' aliases input 'x' (the same tensor); pass a separate"
                    + " tensor for each output");
        assertThatThrownBy(() -> two.call(k, "reversePlus", HOST2, first, shifted))
            .isInstanceOf(IllegalArgumentException.class)
            .hasMessageStartingWith(
                "reversePlus: output 'out' aliases input 'x' (overlapping memory)");
        float[] before = x.toFloatArray();
        assertThat(before).containsExactly(ramp(8, 1)); // nothing ran
        two.call(k, "reversePlus", HOST2, first, apart); // adjacent, not overlapping
        assertThat(apart.toFloatArray()).containsExactly(reversePlus(first.toFloatArray()));
        if (d.target() == Target.OPENCL || d.target() == Target.CUDA) {
          try (DeviceTensor dx = DeviceTensor.upload(d, x)) {
            assertThatThrownBy(() -> two.call(k, "reversePlus", DEVICE2, dx, dx))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage(
                    "reversePlus: output 'out' aliases input 'x' (the same buffer); pass a"
                        + " separate buffer for each output");
          }
        }
      }
    }
  }

  @Test
  void temporariesComeFromTheWorkspaceWithoutAllocatingPerCall() throws Throwable {
    assumeTrue(Devices.openCl().isPresent(), "no OpenCL device: " + Devices.describe());
    Device cl = Devices.openCl().get();
    try (AutoCloseable k = two.load(cl)) {
      long start = Workspace.allocations();
      run(k, 100);
      assertThat(Workspace.allocations() - start).as("the first call allocates").isEqualTo(1);
      for (int i = 0; i < 20; i++) {
        run(k, 100);
        run(k, 37);
      }
      assertThat(Workspace.allocations() - start).as("repeated calls").isEqualTo(1);
      run(k, 1000);
      assertThat(Workspace.allocations() - start).as("growth").isEqualTo(2);
      run(k, 100);
      run(k, 1000);
      assertThat(Workspace.allocations() - start).as("after growth").isEqualTo(2);
    }
  }

  @Test
  void threadsSharingALauncherGetTheirOwnTemporaries() throws Throwable {
    assumeTrue(Devices.openCl().isPresent(), "no OpenCL device: " + Devices.describe());
    try (AutoCloseable k = two.load(Devices.openCl().get())) {
      ExecutorService pool = Executors.newFixedThreadPool(4);
      try {
        List<Future<?>> fs = new ArrayList<>();
        for (int t = 0; t < 4; t++) {
          int n = 50 + 70 * t;
          fs.add(
              pool.submit(
                  () -> {
                    for (int i = 0; i < 30; i++) {
                      try {
                        run(k, n + i);
                      } catch (Throwable e) {
                        throw new AssertionError(e);
                      }
                    }
                    return null;
                  }));
        }
        for (Future<?> f : fs) {
          f.get();
        }
      } finally {
        pool.shutdownNow();
      }
    }
  }

  @Test
  void closingWhileOtherThreadsCallOnlyEverFailsWithIllegalState() throws Throwable {
    for (Device d : devices()) {
      AutoCloseable k = two.load(d);
      ConcurrentLinkedQueue<Throwable> other = new ConcurrentLinkedQueue<>();
      AtomicBoolean sawClosed = new AtomicBoolean();
      ExecutorService pool = Executors.newFixedThreadPool(3);
      List<Future<?>> fs = new ArrayList<>();
      for (int t = 0; t < 3; t++) {
        fs.add(
            pool.submit(
                () -> {
                  for (int i = 0; i < 1_000_000 && !sawClosed.get(); i++) {
                    try {
                      run(k, 4096);
                    } catch (IllegalStateException e) {
                      assertThat(e).hasMessageContaining("was closed");
                      sawClosed.set(true);
                    } catch (Throwable e) {
                      other.add(e);
                      return;
                    }
                  }
                }));
      }
      Thread.sleep(100);
      k.close();
      for (Future<?> f : fs) {
        f.get();
      }
      pool.shutdownNow();
      assertThat(other).as(d.name()).isEmpty();
      assertThat(sawClosed).as(d.name()).isTrue();
    }
  }

  /** One call of reversePlus at size n, checked. */
  static void run(AutoCloseable k, int n) throws Throwable {
    float[] xs = ramp(n, n % 7);
    try (HostTensor x = HostTensor.of(xs, n);
        HostTensor y = HostTensor.zeros(DataType.FLOAT32, n)) {
      two.call(k, "reversePlus", HOST2, x, y);
      assertThat(y.toFloatArray()).containsExactly(reversePlus(xs));
    }
  }

  /**
   * A launcher whose kernels need a temporary is captured in a CUDA graph: before, it called
   * cuMemAlloc inside the capture and failed with CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED.
   */
  @Test
  void aLauncherWithTemporariesIsCapturedInACudaGraph() throws Throwable {
    dev.kernelgen.runtime.cuda.CudaDevice gpu = CudaTests.deviceOrSkip();
    CompiledLauncher cuda =
        CompiledLauncher.build(
            TestSpecs.TwoKernelsSpec.class, "TwoKernels", tmp.resolve("cuda"), Target.CUDA);
    int n = 5000;
    float[] xs = ramp(n, 3);
    try (AutoCloseable k = cuda.load(gpu);
        HostTensor x = HostTensor.of(xs, n);
        DeviceTensor dx = DeviceTensor.upload(gpu, x);
        DeviceTensor dy = DeviceTensor.allocate(gpu, DataType.FLOAT32, n)) {
      cuda.call(k, "reversePlus", DEVICE2, dx, dy); // the first call sizes the workspace
      long allocations = Workspace.allocations();
      try (HostTensor zeros = HostTensor.zeros(DataType.FLOAT32, n)) {
        dy.buffer().copyFromHost(zeros);
      }
      try (dev.kernelgen.runtime.cuda.CudaGraph graph =
          capture(gpu, cuda, k, "reversePlus", DEVICE2, dx, dy)) {
        graph.launch();
        graph.launch();
      }
      assertThat(Workspace.allocations()).isEqualTo(allocations);
      try (HostTensor y = dy.toHost()) {
        assertThat(y.toFloatArray()).containsExactly(reversePlus(xs));
      }
    }
  }

  /**
   * A gathering launcher (a status word to read back after its kernels) is captured in a CUDA
   * graph: nothing is read inside the capture, a replay gathers, and an index outside the table in
   * a replay is reported by the next direct call.
   */
  @Test
  void aGatheringLauncherIsCapturedInACudaGraph() throws Throwable {
    dev.kernelgen.runtime.cuda.CudaDevice gpu = CudaTests.deviceOrSkip();
    CompiledLauncher cuda =
        CompiledLauncher.build(
            TestSpecs.EmbeddingSpec.class,
            "EmbeddingKernels",
            tmp.resolve("emb-cuda"),
            Target.CUDA);
    Class<?>[] device3 = {DeviceTensor.class, DeviceTensor.class, DeviceTensor.class};
    float[] t = ramp(15, 0);
    try (AutoCloseable k = cuda.load(gpu);
        HostTensor table = HostTensor.of(t, 5, 3);
        HostTensor ids = HostTensor.of(new int[] {3, 1, 4, 0}, 4);
        HostTensor bad = HostTensor.of(new int[] {3, 1, 5, 0}, 4);
        DeviceTensor dt = DeviceTensor.upload(gpu, table);
        DeviceTensor di = DeviceTensor.upload(gpu, ids);
        DeviceTensor rows = DeviceTensor.allocate(gpu, DataType.FLOAT32, 4, 3)) {
      cuda.call(k, "lookup", device3, dt, di, rows); // the first call sizes the workspace
      try (dev.kernelgen.runtime.cuda.CudaGraph graph =
          capture(gpu, cuda, k, "lookup", device3, dt, di, rows)) {
        graph.launch();
        try (HostTensor got = rows.toHost()) {
          float[] want = new float[12];
          int[] at = {3, 1, 4, 0};
          for (int i = 0; i < 4; i++) {
            System.arraycopy(t, at[i] * 3, want, i * 3, 3);
          }
          assertThat(got.toFloatArray()).containsExactly(want);
        }
        di.buffer().copyFromHost(bad);
        graph.launch();
        assertThatThrownBy(() -> cuda.call(k, "lookup", device3, dt, di, rows))
            .isInstanceOf(dev.kernelgen.runtime.DeviceException.class)
            .hasMessageContaining("an index read from a tensor is outside the tensor it indexes");
        di.buffer().copyFromHost(ids);
        cuda.call(k, "lookup", device3, dt, di, rows); // the status was reset
      }
    }
  }

  /** A CUDA graph of one call of a launcher's operator. */
  static dev.kernelgen.runtime.cuda.CudaGraph capture(
      dev.kernelgen.runtime.cuda.CudaDevice gpu,
      CompiledLauncher launcher,
      AutoCloseable k,
      String operator,
      Class<?>[] types,
      Object... args) {
    return gpu.captureGraph(
        () -> {
          try {
            launcher.call(k, operator, types, args);
          } catch (Throwable e) {
            throw new IllegalStateException(e);
          }
        });
  }
}
