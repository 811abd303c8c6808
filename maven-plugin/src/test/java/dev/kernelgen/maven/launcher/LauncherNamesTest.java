package dev.kernelgen.maven.launcher;

import static org.assertj.core.api.Assertions.assertThat;

import dev.kernelgen.annotations.Target;
import dev.kernelgen.driver.LibraryModel;
import dev.kernelgen.runtime.Devices;
import dev.kernelgen.runtime.HostTensor;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The launcher's identifiers come from one name allocator per operator, which holds the fields the
 * methods name unqualified ({@code device}, {@code module}) and every parameter and local: before,
 * an input called {@code device}, a dim called {@code module} or inputs {@code x} and {@code
 * x_type} made a launcher that did not compile.
 */
class LauncherNamesTest {
  @TempDir Path tmp;

  @Test
  void namesThatClashWithTheLaunchersOwnAreRenamedAndTheLauncherRuns() throws Throwable {
    LibraryModel m = LauncherGeneratorTest.model(TestSpecs.Clashes.class, tmp, Target.JAVA);
    String src = LauncherGenerator.generate(m).get(0).content();
    assertThat(src)
        .contains(
            "public void mix(HostTensor device2, HostTensor x, HostTensor xType, HostTensor out)")
        .contains("long module_ = dims_[0];")
        .contains("DataType device2Type, long[] device2, DataType xType_, long[] x,")
        .contains("Launchers.onDevice(device, ");
    CompiledLauncher launcher =
        CompiledLauncher.build(
            TestSpecs.Clashes.class, "ClashKernels", tmp.resolve("run"), Target.JAVA);
    int n = 5;
    float[] device = new float[n];
    float[] x = new float[n];
    float[] xType = new float[n];
    float[] expected = new float[n];
    for (int i = 0; i < n; i++) {
      device[i] = i;
      x[i] = 0.5f * i - 1;
      xType[i] = 2 - i;
      expected[i] = (device[i] + x[i]) * xType[i];
    }
    Class<?>[] types = {HostTensor.class, HostTensor.class, HostTensor.class, HostTensor.class};
    try (AutoCloseable k = launcher.load(Devices.java());
        HostTensor a = HostTensor.of(device, n);
        HostTensor b = HostTensor.of(x, n);
        HostTensor c = HostTensor.of(xType, n);
        HostTensor out =
            (HostTensor)
                launcher.call(
                    k,
                    "allocateMixOutput",
                    new Class<?>[] {HostTensor.class, HostTensor.class, HostTensor.class},
                    a,
                    b,
                    c)) {
      launcher.call(k, "mix", types, a, b, c, out);
      assertThat(out.toFloatArray()).containsExactly(expected);
    }
  }

  @Test
  void anOperatorWithoutInputsGetsAllocatorsOfTwoNamesAndRuns() throws Throwable {
    // Both allocators took no parameters and had one name: the launcher did not compile.
    CompiledLauncher launcher =
        CompiledLauncher.build(
            TestSpecs.IotaSpec.class, "IotaKernels", tmp.resolve("iota"), Target.JAVA, Target.C);
    assertThat(launcher.type().getMethod("allocateIotaOutputOnDevice").getReturnType())
        .isEqualTo(dev.kernelgen.runtime.launch.DeviceTensor.class);
    java.util.List<dev.kernelgen.runtime.Device> devices = new java.util.ArrayList<>();
    devices.add(Devices.java());
    Devices.cpu().ifPresent(devices::add);
    for (var d : devices) {
      try (AutoCloseable k = launcher.load(d);
          HostTensor out = (HostTensor) launcher.call(k, "allocateIotaOutput", new Class<?>[] {})) {
        launcher.call(k, "iota", new Class<?>[] {HostTensor.class}, out);
        assertThat(out.toFloatArray()).as(d.name()).containsExactly(0f, 0.5f, 1f, 1.5f, 2f);
      }
    }
  }

  @Test
  void anInputKeepsItsNameWhereADimHasItToo() throws Throwable {
    // The dims took their names first, and the input became x2 in the launcher's signature.
    LibraryModel m = LauncherGeneratorTest.model(TestSpecs.SameNameSpec.class, tmp, Target.JAVA);
    String src = LauncherGenerator.generate(m).get(0).content();
    assertThat(src)
        .contains("public void twice(HostTensor x, HostTensor out)")
        .doesNotContain("x2");
    CompiledLauncher launcher =
        CompiledLauncher.build(
            TestSpecs.SameNameSpec.class, "SameNameKernels", tmp.resolve("same"), Target.JAVA);
    try (AutoCloseable k = launcher.load(Devices.java());
        HostTensor x = HostTensor.of(new float[] {1, 2, 3}, 3);
        HostTensor out = HostTensor.zeros(dev.kernelgen.runtime.DataType.FLOAT32, 3)) {
      launcher.call(k, "twice", new Class<?>[] {HostTensor.class, HostTensor.class}, x, out);
      assertThat(out.toFloatArray()).containsExactly(2f, 4f, 6f);
    }
  }
}
