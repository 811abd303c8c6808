package dev.kernelgen.maven.launcher;

import static org.assertj.core.api.Assertions.assertThat;

import dev.kernelgen.annotations.Target;
import dev.kernelgen.driver.KernelDriver;
import dev.kernelgen.driver.LibraryModel;
import dev.kernelgen.maven.generate.InMemoryCompiler;
import dev.kernelgen.runtime.DataType;
import dev.kernelgen.runtime.Device;
import dev.kernelgen.runtime.Devices;
import dev.kernelgen.runtime.HostTensor;
import java.io.File;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.reflect.Method;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue 12: an operator with symbolic dims gets 32-bit and 64-bit index kernels ({@code lastRow},
 * {@code lastRow_idx64}), and its launcher runs the 64-bit ones when a tensor of the launch holds
 * more than 2^30 elements: here a [3, 2^30] float32 matrix in a sparse file (12 GiB of address
 * space, a few pages of memory), whose last elements lie past 2^31.
 */
class IndexWidthLauncherTest {
  @TempDir static Path tmp;
  static LibraryModel model;
  static String source;
  static Class<?> launcher;

  @BeforeAll
  static void build() throws Exception {
    Path res = tmp.resolve("res");
    model = LauncherGeneratorTest.model(TestSpecs.LastRowSpec.class, res, Target.C, Target.JAVA);
    List<InMemoryCompiler.Source> sources = new ArrayList<>();
    List<LauncherGenerator.GeneratedSource> generated = LauncherGenerator.generate(model);
    for (LauncherGenerator.GeneratedSource s : generated) {
      sources.add(new InMemoryCompiler.Source(s.path(), s.content()));
    }
    source = generated.get(0).content();
    List<Path> cp =
        Arrays.stream(System.getProperty("java.class.path").split(File.pathSeparator))
            .map(Path::of)
            .toList();
    ClassLoader resources =
        new URLClassLoader(
            new URL[] {res.toUri().toURL()}, IndexWidthLauncherTest.class.getClassLoader());
    InMemoryCompiler.Result r = InMemoryCompiler.compileSources(sources, cp, resources);
    launcher = r.loader().loadClass("dev.kernelgen.maven.launcher.LastRowKernels");
  }

  @Test
  void aGenericOperatorHas32And64BitKernelsAndTheLauncherChoosesByElementCount() {
    LibraryModel.Variant v = model.operators().get(0).variants().get(0);
    for (Target t : List.of(Target.C, Target.JAVA)) {
      assertThat(v.builds().get(t).kernels().get(0).name()).isEqualTo("lastRow");
      assertThat(v.wideBuilds().get(t).kernels().get(0).name())
          .isEqualTo("lastRow" + KernelDriver.WIDE_SUFFIX);
    }
    // The 64-bit kernels first, taken when some tensor passes the 32-bit kernels' reach; the
    // 32-bit ones otherwise.
    String wide = "module.function(\"lastRow_idx64\"";
    String narrow = "module.function(\"lastRow\"";
    String check =
        "if (ElementCounts.wide(ElementCounts.of(\"lastRow\", \"x\", DataType.FLOAT32, n, m),";
    assertThat(source)
        .contains(check, "ElementCounts.of(\"lastRow\", \"last\", DataType.FLOAT32, 4L))) {")
        .contains(wide, narrow);
    int at = source.indexOf(check);
    assertThat(source.indexOf(wide, at)).isLessThan(source.indexOf(narrow, at));
  }

  @Test
  void theLauncherCountsTheBuffersTheCKernelsAllocateThemselves() throws Exception {
    LibraryModel m =
        LauncherGeneratorTest.model(
            TestSpecs.PaddedSumSpec.class, tmp.resolve("padded"), Target.C, Target.JAVA);
    LibraryModel.Variant v = m.operators().get(0).variants().get(0);
    assertThat(v.intermediates())
        .extracting(LibraryModel.Temporary::name)
        .containsExactly("Padded");
    String src = LauncherGenerator.generate(m).get(0).content();
    assertThat(src)
        .contains(
            "ElementCounts.of(\"paddedSum\", \"intermediate Padded\", DataType.FLOAT32, (n * (m"
                + " + 2L))))) {");
  }

  /** {@code x[n-1, m-4 .. m-1]} is 1, 2, 3, 4; everything else 0. */
  private static MemorySegment matrix(Arena arena, long n, long m) throws Exception {
    Path file = java.nio.file.Files.createTempFile(tmp, "x-" + n + "x" + m, ".bin");
    try (FileChannel ch =
        FileChannel.open(
            file, StandardOpenOption.READ, StandardOpenOption.WRITE, StandardOpenOption.SPARSE)) {
      MemorySegment seg = ch.map(FileChannel.MapMode.READ_WRITE, 0, n * m * 4, arena);
      for (int k = 0; k < 4; k++) {
        seg.setAtIndex(ValueLayout.JAVA_FLOAT, n * m - 4 + k, k + 1f);
      }
      return seg;
    }
  }

  private static void runOn(Device device) throws Exception {
    Method host = launcher.getMethod("lastRow", HostTensor.class, HostTensor.class);
    try (AutoCloseable k =
            (AutoCloseable) launcher.getMethod("load", Device.class).invoke(null, device);
        Arena arena = Arena.ofShared()) {
      for (long[] shape : new long[][] {{3, 10}, {3, 1L << 30}}) {
        MemorySegment seg = matrix(arena, shape[0], shape[1]);
        try (HostTensor x = HostTensor.wrap(DataType.FLOAT32, seg, shape);
            HostTensor out = HostTensor.zeros(DataType.FLOAT32, 4)) {
          host.invoke(k, x, out);
          assertThat(out.toFloatArray())
              .as("%s on %s", Arrays.toString(shape), device.name())
              .containsExactly(1f, 2f, 3f, 4f);
        }
      }
    }
  }

  @Test
  void readsPast2e31ElementsOnJava() throws Exception {
    runOn(Devices.java());
  }

  @Test
  void readsPast2e31ElementsOnC() throws Exception {
    Optional<? extends Device> cpu = Devices.cpu();
    org.junit.jupiter.api.Assumptions.assumeTrue(cpu.isPresent(), Devices.describe());
    runOn(cpu.get());
  }
}
