package dev.kernelgen.maven.launcher;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.kernelgen.annotations.Target;
import dev.kernelgen.codegen.NativeToolchain;
import dev.kernelgen.driver.LibraryModel;
import dev.kernelgen.eval.NDArray;
import dev.kernelgen.eval.TensorInterpreter;
import dev.kernelgen.maven.generate.InMemoryCompiler;
import dev.kernelgen.runtime.DataType;
import dev.kernelgen.runtime.Device;
import dev.kernelgen.runtime.DeviceException;
import dev.kernelgen.runtime.HostTensor;
import dev.kernelgen.runtime.cpu.CpuDevice;
import dev.kernelgen.runtime.cpu.CpuIsa;
import dev.kernelgen.runtime.cpu.NativeLibraryCache;
import dev.kernelgen.spec.OperatorDef;
import dev.kernelgen.te.DType;
import java.io.File;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * One jar, every CPU: the generated launcher's C device loads the library of the best ISA level the
 * CPU supports, capped by {@code kernelgen.cpu.maxIsa}, and each level's kernels agree with the
 * tensor-expression oracle; below every level, {@code load()} runs the Java kernels.
 */
class IsaLevelLauncherTest {
  @TempDir static Path tmp;
  static Class<?> launcher;
  static LibraryModel model;
  static Class<?> denseLauncher;
  static Path denseDir;

  @BeforeAll
  static void build() throws Exception {
    Assumptions.assumeTrue(
        NativeToolchain.fromEnvironment().findCc().isPresent(), "no C compiler on PATH: skipped");
    Path res = tmp.resolve("res");
    model = LauncherGeneratorTest.model(TestSpecs.MathSpec.class, res, Target.C, Target.JAVA);
    launcher = compile(model, res, "MathKernels");
    Path denseRes = tmp.resolve("dense-res");
    LibraryModel dense =
        LauncherGeneratorTest.model(TestSpecs.DenseSpec.class, denseRes, Target.C, Target.JAVA);
    denseLauncher = compile(dense, denseRes, "DenseKernels");
    denseDir = denseRes.resolve(dense.resourceDir());
  }

  /** The launcher class {@code name} of {@code m}, compiled, its resources under {@code res}. */
  static Class<?> compile(LibraryModel m, Path res, String name) throws Exception {
    List<InMemoryCompiler.Source> sources = new ArrayList<>();
    for (LauncherGenerator.GeneratedSource s : LauncherGenerator.generate(m)) {
      sources.add(new InMemoryCompiler.Source(s.path(), s.content()));
    }
    List<Path> cp =
        Arrays.stream(System.getProperty("java.class.path").split(File.pathSeparator))
            .map(Path::of)
            .toList();
    ClassLoader resources =
        new URLClassLoader(
            new URL[] {res.toUri().toURL()}, IsaLevelLauncherTest.class.getClassLoader());
    return InMemoryCompiler.compileSources(sources, cp, resources)
        .loader()
        .loadClass("dev.kernelgen.maven.launcher." + name);
  }

  @AfterEach
  void uncap() {
    System.clearProperty(CpuIsa.MAX_ISA_PROPERTY);
  }

  @ParameterizedTest
  @ValueSource(strings = {"x86-64-v2", "x86-64-v3", "x86-64-v4"})
  void eachLevelIsPickedUnderItsCapAndMatchesTheOracle(String level) throws Throwable {
    int wanted = CpuIsa.X86_64_LEVELS.indexOf(level) + 1;
    Assumptions.assumeTrue(
        CpuIsa.machineLevel() >= wanted,
        "this CPU is " + CpuIsa.machineLevelName() + ", below " + level + ": skipped");
    System.setProperty(CpuIsa.MAX_ISA_PROPERTY, level);
    Path cache = tmp.resolve("cache-" + level);
    Device cpu = CpuDevice.create(new NativeLibraryCache(cache));
    try (AutoCloseable k = load(cpu)) {
      for (int n : new int[] {4, 1003}) { // 4: the specialized kernel; 1003: a ragged vector loop
        runAgainstOracle(k, 37, n);
      }
    }
    // The one library extracted is this level's, by its hash.
    String sha =
        model.modules().get(Target.C).sharedLibraries().stream()
            .filter(l -> l.isaLevel().equals(level))
            .findFirst()
            .orElseThrow()
            .sha256();
    try (Stream<Path> files = Files.list(cache)) {
      assertThat(files.map(p -> p.getFileName().toString())).containsExactly(sha + ".so");
    }
  }

  /**
   * A generated schedule's untuned pick is made per level: below v4 the dense layer's library is
   * compiled from its own source (AVX2's register tile), and each level's kernel, loaded under its
   * cap, agrees with the oracle.
   */
  @ParameterizedTest
  @ValueSource(strings = {"x86-64-v2", "x86-64-v3", "x86-64-v4"})
  void eachLevelRunsItsOwnUntunedPickAndMatchesTheOracle(String level) throws Throwable {
    String shared = Files.readString(denseDir.resolve("c/DenseKernels.c"));
    Path own = denseDir.resolve("c/DenseKernels." + level + ".c");
    if (level.equals("x86-64-v4")) {
      assertThat(own).doesNotExist();
    } else {
      assertThat(Files.readString(own)).isNotEqualTo(shared);
    }
    int wanted = CpuIsa.X86_64_LEVELS.indexOf(level) + 1;
    Assumptions.assumeTrue(
        CpuIsa.machineLevel() >= wanted,
        "this CPU is " + CpuIsa.machineLevelName() + ", below " + level + ": skipped");
    System.setProperty(CpuIsa.MAX_ISA_PROPERTY, level);
    Device cpu = CpuDevice.create(new NativeLibraryCache(tmp.resolve("dense-cache-" + level)));
    try (AutoCloseable k = load(denseLauncher, cpu)) {
      OperatorDef def = TestSpecs.DenseSpec.dense();
      NDArray a = NDArray.random(DType.FLOAT32, 3, 33, 64);
      NDArray b = NDArray.random(DType.FLOAT32, 5, 64, 100);
      NDArray expected =
          TensorInterpreter.evaluate(
              def.output(), Map.of(def.inputs().get(0), a, def.inputs().get(1), b), Map.of());
      Method dense =
          denseLauncher.getMethod("dense", HostTensor.class, HostTensor.class, HostTensor.class);
      try (HostTensor ha = HostTensor.zeros(DataType.FLOAT32, 33, 64);
          HostTensor hb = HostTensor.zeros(DataType.FLOAT32, 64, 100);
          HostTensor out = HostTensor.zeros(DataType.FLOAT32, 33, 100)) {
        ha.segment().copyFrom(a.segment());
        hb.segment().copyFrom(b.segment());
        dense.invoke(k, ha, hb, out);
        NDArray.assertClose(
            expected, NDArray.wrap(DType.FLOAT32, out.segment(), 33, 100), 1e-4, 1e-4);
      }
    }
  }

  @Test
  void belowEveryLevelTheCDeviceRefusesAndLoadFallsBackToJava() throws Exception {
    System.setProperty(CpuIsa.MAX_ISA_PROPERTY, "x86-64");
    Device cpu = CpuDevice.create(new NativeLibraryCache(tmp.resolve("cache-none")));
    assertThatThrownBy(() -> load(cpu))
        .isInstanceOf(DeviceException.class)
        .hasMessageContaining("no C library of MathKernels runs on this CPU")
        .hasMessageContaining("capped at x86-64")
        .hasMessageContaining("[x86-64-v2, x86-64-v3, x86-64-v4]");
    Assumptions.assumeTrue(
        System.getProperty("kernelgen.target") == null && System.getenv("KERNELGEN_TARGET") == null,
        "a target is forced: no fallback to test");
    List<java.util.logging.LogRecord> logged = new java.util.concurrent.CopyOnWriteArrayList<>();
    java.util.logging.Logger jul =
        java.util.logging.Logger.getLogger("dev.kernelgen.runtime.launch");
    java.util.logging.Handler h =
        new java.util.logging.Handler() {
          @Override
          public void publish(java.util.logging.LogRecord r) {
            logged.add(r);
          }

          @Override
          public void flush() {}

          @Override
          public void close() {}
        };
    jul.addHandler(h);
    try {
      for (int i = 0; i < 2; i++) {
        try (AutoCloseable k = (AutoCloseable) launcher.getMethod("load").invoke(null)) {
          Device d = (Device) launcher.getMethod("device").invoke(k);
          assertThat(d.target()).isEqualTo(Target.JAVA);
          runAgainstOracle(k, 5, 9);
        }
      }
    } finally {
      jul.removeHandler(h);
    }
    assertThat(logged).as("the reason, logged once").hasSize(1);
    assertThat(logged.get(0).getMessage())
        .contains("library MathKernels: the C kernels cannot run on this machine")
        .contains("no C library of MathKernels runs on this CPU");
  }

  static AutoCloseable load(Device d) throws Throwable {
    return load(launcher, d);
  }

  static AutoCloseable load(Class<?> launcher, Device d) throws Throwable {
    try {
      return (AutoCloseable) launcher.getMethod("load", Device.class).invoke(null, d);
    } catch (InvocationTargetException e) {
      throw e.getCause();
    }
  }

  static void runAgainstOracle(AutoCloseable k, int m, int n) throws Exception {
    OperatorDef def = TestSpecs.MathSpec.rowSum();
    NDArray x = NDArray.random(DType.FLOAT32, 11 * m + n, m, n);
    NDArray expected =
        TensorInterpreter.evaluate(def.output(), Map.of(def.inputs().get(0), x), Map.of());
    Method host = launcher.getMethod("rowSum", HostTensor.class, HostTensor.class);
    try (HostTensor in = HostTensor.zeros(DataType.FLOAT32, m, n);
        HostTensor out = HostTensor.zeros(DataType.FLOAT32, m)) {
      in.segment().copyFrom(x.segment());
      host.invoke(k, in, out);
      NDArray.assertClose(expected, NDArray.wrap(DType.FLOAT32, out.segment(), m), 1e-4, 1e-4);
    }
  }
}
