package dev.kernelgen.maven.launcher;

import static org.assertj.core.api.Assertions.assertThat;

import dev.kernelgen.annotations.Target;
import dev.kernelgen.driver.GenerateRequest;
import dev.kernelgen.driver.KernelDriver;
import dev.kernelgen.driver.LibraryModel;
import dev.kernelgen.maven.generate.InMemoryCompiler;
import java.io.File;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.EnumSet;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class LauncherGeneratorTest {
  @TempDir Path tmp;

  static LibraryModel model(Class<?> spec, Path dir, Target... targets) {
    return KernelDriver.generate(
            GenerateRequest.builder()
                .spec(spec, Path.of(spec.getSimpleName() + ".java"))
                .targets(EnumSet.of(targets[0], targets))
                .resourcesDir(dir)
                .build())
        .get(0);
  }

  @Test
  void aGatheringLauncherReadsItsStatusWordAndSaysItsDeviceCallWaits() throws Exception {
    String gathers =
        LauncherGenerator.generate(
                model(TestSpecs.EmbeddingSpec.class, tmp.resolve("emb"), Target.OPENCL))
            .get(0)
            .content();
    assertThat(gathers)
        .contains("lease_.status()")
        .contains("checkStatus(\"lookup\")")
        .contains("on GPUs it waits for the kernels")
        .doesNotContain("asynchronously on GPUs");
    String plain =
        LauncherGenerator.generate(
                model(TestSpecs.TwoKernelsSpec.class, tmp.resolve("two"), Target.OPENCL))
            .get(0)
            .content();
    assertThat(plain).contains("asynchronously on GPUs").doesNotContain("checkStatus");
  }

  @Test
  void generatesTheExpectedLauncherSource() throws Exception {
    LibraryModel m = model(TestSpecs.Add.class, tmp.resolve("res"), Target.JAVA);
    List<LauncherGenerator.GeneratedSource> files = LauncherGenerator.generate(m);
    assertThat(files)
        .extracting(LauncherGenerator.GeneratedSource::path)
        .containsExactly(
            "dev/kernelgen/maven/launcher/AddKernels.java",
            "dev/kernelgen/maven/launcher/AddKernelsJava.java");
    String expected;
    try (var in = getClass().getResourceAsStream("/launcher/AddKernels.java.txt")) {
      expected = in == null ? "" : new String(in.readAllBytes(), StandardCharsets.UTF_8);
    }
    if (Boolean.getBoolean("kernelgen.updateExpected")) {
      Files.writeString(
          Path.of("src/test/resources/launcher/AddKernels.java.txt"), files.get(0).content());
    }
    assertThat(files.get(0).content()).isEqualTo(expected);
  }

  /**
   * Outputs are named after their role, not their last stage: an operator whose stage {@code Bias}
   * sits beside an input {@code bias} takes {@code (x, bias, out)}, not {@code bias2}.
   */
  @Test
  void outputParametersAreNamedAfterTheOperatorNotTheirStage() throws Exception {
    LibraryModel m = model(TestSpecs.Naming.class, tmp.resolve("res"), Target.JAVA);
    List<LauncherGenerator.GeneratedSource> files = LauncherGenerator.generate(m);
    String src = files.get(0).content();
    assertThat(src)
        .contains("public void addBias(HostTensor x, HostTensor bias, HostTensor out)")
        .contains("@param out output {@code Bias}")
        .contains("public HostTensor allocateAddBiasOutput(HostTensor x, HostTensor bias)")
        .contains("public void copyOut(HostTensor out, HostTensor output)")
        .contains("public void twice(HostTensor x, HostTensor xPlusOut, HostTensor xMinusOut)")
        .contains("public HostTensor allocateTwiceXPlus(HostTensor x)")
        .contains("public void outDim(HostTensor x, HostTensor out)") // the dim takes out_
        .doesNotContain("bias2");
    // The launcher compiles: no parameter clashes with a dim's local.
    List<InMemoryCompiler.Source> sources = new ArrayList<>();
    files.forEach(f -> sources.add(new InMemoryCompiler.Source(f.path(), f.content())));
    List<Path> cp =
        Arrays.stream(System.getProperty("java.class.path").split(File.pathSeparator))
            .map(Path::of)
            .toList();
    assertThat(
            InMemoryCompiler.compileSources(sources, cp, getClass().getClassLoader())
                .classes()
                .keySet())
        .contains("dev.kernelgen.maven.launcher.NamingKernels");
  }

  @Test
  void aCudaLauncherLoadsTheFatbinWithItsHashAndArchitectures() throws Exception {
    org.junit.jupiter.api.Assumptions.assumeTrue(
        dev.kernelgen.codegen.NativeToolchain.fromEnvironment().findNvcc().isPresent(),
        "nvcc not found: skipped");
    Path res = tmp.resolve("cuda-res");
    LibraryModel m = model(TestSpecs.MathSpec.class, res, Target.CUDA, Target.JAVA);
    LibraryModel.Fatbin f = m.modules().get(Target.CUDA).fatbin();
    String launcher = LauncherGenerator.generate(m).get(0).content();
    assertThat(launcher)
        .contains(
            "case CUDA -> Launchers.cudaFatbin(LIBRARY, MathKernels.class, RESOURCES + \""
                + f.path()
                + "\", \""
                + f.sha256()
                + "\", \"sm_90\", \"compute_90\");");
    List<dev.kernelgen.maven.generate.InMemoryCompiler.Source> sources =
        new java.util.ArrayList<>();
    for (LauncherGenerator.GeneratedSource s : LauncherGenerator.generate(m)) {
      sources.add(new dev.kernelgen.maven.generate.InMemoryCompiler.Source(s.path(), s.content()));
    }
    List<Path> cp =
        java.util.Arrays.stream(
                System.getProperty("java.class.path").split(java.io.File.pathSeparator))
            .map(Path::of)
            .toList();
    var loader =
        dev.kernelgen.maven.generate.InMemoryCompiler.compileSources(
                sources, cp, new java.net.URLClassLoader(new java.net.URL[] {res.toUri().toURL()}))
            .loader();
    assertThat(loader.loadClass("dev.kernelgen.maven.launcher.MathKernels")).isNotNull();
  }
}
