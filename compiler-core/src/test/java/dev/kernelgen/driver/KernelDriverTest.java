package dev.kernelgen.driver;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.kernelgen.annotations.Target;
import dev.kernelgen.autosched.AutoScheduler;
import dev.kernelgen.codegen.NativeToolchain;
import dev.kernelgen.diag.UserError;
import dev.kernelgen.testing.JavaSourceCompiler;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.EnumSet;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class KernelDriverTest {
  @TempDir Path tmp;

  private GenerateRequest.Builder request(Class<?> spec, Target... targets) {
    return GenerateRequest.builder()
        .spec(spec, Path.of("src/main/kernels/java/" + spec.getSimpleName() + ".java"))
        .targets(
            targets.length == 0 ? EnumSet.noneOf(Target.class) : EnumSet.of(targets[0], targets))
        .resourcesDir(tmp.resolve("resources"));
  }

  @Test
  void buildsCAndJavaKernelsWithManifestAndSpecialization() throws Exception {
    List<LibraryModel> models =
        KernelDriver.generate(request(Specs.Small.class, Target.C, Target.JAVA).build());
    assertThat(models).hasSize(1);
    LibraryModel m = models.get(0);
    assertThat(m.name()).isEqualTo("SmallKernels");
    assertThat(m.packageName()).isEqualTo("dev.kernelgen.driver");
    assertThat(m.targets()).containsExactly(Target.C, Target.JAVA);
    assertThat(m.operators())
        .extracting(LibraryModel.Operator::name)
        .containsExactly("add", "rowSum");

    LibraryModel.Operator add = m.operators().get(0);
    assertThat(add.dims()).containsExactly("n");
    assertThat(add.variants()).hasSize(2);
    assertThat(add.variants().get(1).specialization()).isEqualTo(Map.of("n", 1024L));
    LibraryModel.Build cpu = add.variants().get(0).builds().get(Target.C);
    assertThat(cpu.schedule()).isEqualTo("Small.addCpu");
    assertThat(cpu.knobs()).isEqualTo(Map.of("vector", 8));
    assertThat(cpu.space()).isEqualTo(Map.of("vector", List.of(8, 4, 16)));
    assertThat(cpu.kernels()).singleElement().satisfies(k -> assertThat(k.name()).isEqualTo("add"));
    LibraryModel.Kernel spec = add.variants().get(1).builds().get(Target.C).kernels().get(0);
    assertThat(spec.name()).isEqualTo("add_n1024");
    // The specialized kernel has no dim parameter left.
    assertThat(spec.params()).allMatch(p -> p instanceof LibraryModel.Param.Buffer);

    Path dir = tmp.resolve("resources/META-INF/kernels/SmallKernels");
    String manifest = Files.readString(dir.resolve("manifest.json"));
    assertThat(manifest)
        .contains("\"library\": \"SmallKernels\"")
        .contains("\"schedule\": \"Small.addCpu\"")
        .contains("\"knobs\": {\n")
        .contains("s[c].split(i, factor=8)")
        .contains("\"kernelCount\"")
        .contains("c[i] = (a[i] + b[i])");
    List<LibraryModel.SharedLibrary> libs = m.modules().get(Target.C).sharedLibraries();
    assertThat(libs)
        .extracting(LibraryModel.SharedLibrary::isaLevel)
        .containsExactly("x86-64-v2", "x86-64-v3", "x86-64-v4");
    for (LibraryModel.SharedLibrary l : libs) {
      byte[] so = Files.readAllBytes(dir.resolve(l.path()));
      assertThat(so).startsWith(0x7f, 'E', 'L', 'F');
      assertThat(KernelDriver.sha256(so)).isEqualTo(l.sha256());
      assertThat(manifest).contains("\"isa\": \"" + l.isaLevel() + "\"").contains(l.sha256());
    }
    assertThat(Files.readString(dir.resolve("c/SmallKernels.c"))).contains("int64_t add_n1024(");
    assertThat(tmp.resolve("resources.tmp")).doesNotExist();

    // The Java kernels compile and compute the row sum of 2x.
    Class<?> k =
        JavaSourceCompiler.compile(
            "dev.kernelgen.driver." + m.javaKernelClass(), m.javaKernelSource());
    try (Arena arena = Arena.ofConfined()) {
      MemorySegment x = arena.allocate(4 * 6);
      for (int i = 0; i < 6; i++) {
        x.setAtIndex(ValueLayout.JAVA_FLOAT, i, i);
      }
      MemorySegment s = arena.allocate(4 * 2);
      k.getMethod("rowSum", MemorySegment.class, MemorySegment.class, int.class, int.class)
          .invoke(null, x, s, 2, 3);
      assertThat(s.getAtIndex(ValueLayout.JAVA_FLOAT, 0)).isEqualTo(6f);
      assertThat(s.getAtIndex(ValueLayout.JAVA_FLOAT, 1)).isEqualTo(24f);
    }
  }

  @Test
  void symbolicDimsGet32And64BitIndexKernelsAndFixedShapesOne() throws Exception {
    LibraryModel m =
        KernelDriver.generate(request(Specs.Small.class, Target.C, Target.JAVA).build()).get(0);
    LibraryModel.Operator add = m.operators().get(0);
    LibraryModel.Variant generic = add.variants().get(0);
    assertThat(generic.wideBuilds().get(Target.C).kernels().get(0).name())
        .isEqualTo("add" + KernelDriver.WIDE_SUFFIX);
    assertThat(add.variants().get(1).wideBuilds()).isEmpty();
    Path dir = tmp.resolve("resources/META-INF/kernels/SmallKernels");
    String c = Files.readString(dir.resolve("c/SmallKernels.c"));
    assertThat(c)
        .contains(
            "int64_t add(", "int64_t add_idx64(", "int64_t add_n1024(", "int64_t rowSum_idx64(");
    assertThat(c).doesNotContain("add_n1024_idx64");
    assertThat(Files.readString(dir.resolve("manifest.json"))).contains("\"targetsIndex64\"");
    assertThat(m.javaKernelSource()).contains("public static void add_idx64(");
  }

  @Test
  void aSpecializationNamedLikeThe64BitKernelsIsAnError() {
    assertThatThrownBy(() -> KernelDriver.generate(request(Specs.WideNameClash.class).build()))
        .isInstanceOf(UserError.class)
        .hasMessageContaining(
            "specialization {idx=64} names its kernels 'x_idx64', the name of the 64-bit index"
                + " kernels of 'x'");
  }

  @Test
  void gpuTargetsGetDefaultSchedulesWithLaunchGeometry() {
    LibraryModel m =
        KernelDriver.generate(request(Specs.Small.class, Target.OPENCL).build()).get(0);
    LibraryModel.Build b = m.operators().get(1).variants().get(0).builds().get(Target.OPENCL);
    assertThat(b.schedule()).isEqualTo("default");
    // No schedule method, no template: the schedule generated from the compute DAG, its knobs
    // at the untuned pick (one thread per row sum, threads0 of them per block).
    assertThat(b.knobs()).containsEntry("sketch", 0).containsKey("s.threads0");
    LibraryModel.Kernel k = b.kernels().get(0);
    assertThat(k.geometry().blockX().show()).isEqualTo(String.valueOf(b.knobs().get("s.threads0")));
    assertThat(k.geometry().gridX().show()).contains("m");
    assertThat(tmp.resolve("resources/META-INF/kernels/SmallKernels/opencl/SmallKernels.cl"))
        .content()
        .contains("__kernel void rowSum(")
        .contains("__kernel void add_n1024(");
  }

  @Test
  void aLibraryConvolutionOnCIsComputedByWinogradWhereThePickTakesIt() throws Exception {
    LibraryModel m =
        KernelDriver.generate(request(Specs.ConvLayer.class, Target.C, Target.JAVA).build()).get(0);
    var builds = m.operators().get(0).variants().get(0).builds();
    LibraryModel.Build c = builds.get(Target.C);
    // The generated schedule, not the template: its sketch is the rewritten DAG's.
    assertThat(c.knobs()).containsEntry(AutoScheduler.SKETCH, AutoScheduler.WINOGRAD);
    assertThat(c.trace()).anyMatch(l -> l.contains("WinogradProduct"));
    // Java has no Winograd sketch: its kernel is the direct convolution's.
    assertThat(builds.get(Target.JAVA).knobs())
        .doesNotContainEntry(AutoScheduler.SKETCH, AutoScheduler.WINOGRAD);
    Path dir = tmp.resolve("resources/META-INF/kernels/ConvKernels");
    String shared = Files.readString(dir.resolve("c/ConvKernels.c"));
    assertThat(shared).contains("WinogradProduct");
    // AVX2's and SSE's libraries get picks sized for their own registers (the same algorithm).
    for (String level : List.of("x86-64-v2", "x86-64-v3")) {
      assertThat(Files.readString(dir.resolve("c/ConvKernels." + level + ".c")))
          .as(level)
          .contains("WinogradProduct")
          .isNotEqualTo(shared);
    }
    assertThat(dir.resolve("c/ConvKernels.x86-64-v4.c")).doesNotExist();
    assertThat(Files.readString(dir.resolve("manifest.json")))
        .contains("\"source\": \"c/ConvKernels.x86-64-v3.c\"");
  }

  @Test
  void theCMatmulTemplateIsAvx512sAndBelowItEachLevelTakesTheGeneratedSchedule() throws Exception {
    List<String> log = new java.util.ArrayList<>();
    LibraryModel m =
        KernelDriver.generate(request(Specs.MatmulLayer.class, Target.C).log(log::add).build())
            .get(0);
    // The shared source (x86-64-v4's) is the template's: its knobs, no sketch.
    LibraryModel.Build c = m.operators().get(0).variants().get(0).builds().get(Target.C);
    assertThat(c.knobs()).doesNotContainKey(AutoScheduler.SKETCH).containsKey("tile_j");
    Path dir = tmp.resolve("resources/META-INF/kernels/MatmulKernels");
    String shared = Files.readString(dir.resolve("c/MatmulKernels.c"));
    for (String level : List.of("x86-64-v2", "x86-64-v3")) {
      assertThat(Files.readString(dir.resolve("c/MatmulKernels." + level + ".c")))
          .as(level)
          .isNotEqualTo(shared);
      assertThat(log)
          .contains(
              "  operator 'matmul' for C at "
                  + level
                  + ": default schedule for 8 lanes x 16 registers (matmul)");
    }
    assertThat(dir.resolve("c/MatmulKernels.x86-64-v4.c")).doesNotExist();
  }

  @Test
  void configuredKnobsAreUsedAndRecorded() {
    LibraryModel m =
        KernelDriver.generate(
                request(Specs.Small.class, Target.C)
                    .configurations(Map.of("SmallKernels/add/C", Map.of("vector", 16)))
                    .build())
            .get(0);
    LibraryModel.Build b = m.operators().get(0).variants().get(0).builds().get(Target.C);
    assertThat(b.knobs()).isEqualTo(Map.of("vector", 16));
    assertThat(b.configurationSource()).isEqualTo("configured");
  }

  @Test
  void cudaBuildsOneFatbinWithSassPerArchitectureAndPtxOfTheNewest() throws Exception {
    NativeToolchain tc = NativeToolchain.fromEnvironment();
    Assumptions.assumeTrue(tc.findNvcc().isPresent(), "nvcc not found: skipped");
    List<Path> dirs = new java.util.ArrayList<>();
    dirs.add(tc.nvcc().getParent());
    for (String d : System.getenv().getOrDefault("PATH", "").split(java.io.File.pathSeparator)) {
      dirs.add(Path.of(d.isEmpty() ? "." : d));
    }
    dirs.add(Path.of(System.getenv().getOrDefault("CUDA_HOME", "/usr/local/cuda"), "bin"));
    dirs.add(Path.of("/usr/local/cuda/bin"));
    Path cuobjdump =
        dirs.stream()
            .map(d -> d.resolve("cuobjdump"))
            .filter(Files::isExecutable)
            .findFirst()
            .orElse(Path.of("cuobjdump"));
    LibraryModel m =
        KernelDriver.generate(
                request(Specs.Gpu.class).cudaArchitectures(List.of("sm_90", "sm_80")).build())
            .get(0);
    LibraryModel.Module mod = m.modules().get(Target.CUDA);
    Path dir = tmp.resolve("resources/META-INF/kernels/GpuKernels");
    assertThat(mod.fatbin().architectures()).containsExactly("sm_80", "sm_90", "compute_90");
    Path fatbin = dir.resolve(mod.fatbin().path());
    assertThat(KernelDriver.sha256(Files.readAllBytes(fatbin))).isEqualTo(mod.fatbin().sha256());
    assertThat(Files.readString(dir.resolve("manifest.json")))
        .contains("\"fatbin\"")
        .contains(mod.fatbin().sha256())
        .doesNotContain("\"cubins\"");
    Assumptions.assumeTrue(
        Files.isExecutable(cuobjdump),
        "no cuobjdump next to nvcc, on PATH or in CUDA_HOME: skipped");
    Process p =
        new ProcessBuilder(cuobjdump.toString(), "--list-elf", "--list-ptx", fatbin.toString())
            .redirectErrorStream(true)
            .start();
    String listing = new String(p.getInputStream().readAllBytes());
    assertThat(p.waitFor()).as(listing).isZero();
    assertThat(listing)
        .contains("sm_90.cubin")
        .contains("sm_80.cubin")
        .contains("sm_90.ptx")
        .doesNotContain("sm_80.ptx");
  }

  @Test
  void aSpecThatThrowsNamesFileClassAndMethod() {
    Files.exists(tmp);
    assertThatThrownBy(() -> KernelDriver.generate(request(Specs.Throwing.class).build()))
        .isInstanceOf(UserError.class)
        .hasMessageContaining("Throwing.java: dev.kernelgen.driver.Specs$Throwing.broken()")
        .hasMessageContaining("'b'");
    assertThat(tmp.resolve("resources")).doesNotExist();
    assertThat(tmp.resolve("resources.tmp")).doesNotExist();
  }

  @Test
  void anIllegalScheduleNamesTheScheduleMethod() {
    assertThatThrownBy(() -> KernelDriver.generate(request(Specs.Illegal.class).build()))
        .isInstanceOf(UserError.class)
        .hasMessageContaining("Specs$Illegal.cpu()")
        .hasMessageContaining("vectorize of reduce axis 'k'");
  }

  @Test
  void aMissingNvccSaysWhichToolAndWhichLibrary() {
    assertThatThrownBy(
            () ->
                KernelDriver.generate(
                    request(Specs.Gpu.class)
                        .toolchain(
                            NativeToolchain.fromEnvironment().withNvcc(tmp.resolve("no/such/nvcc")))
                        .build()))
        .isInstanceOf(UserError.class)
        .hasMessageContaining("GpuKernels")
        .hasMessageContaining("CUDA compiler")
        .hasMessageContaining("no/such/nvcc");
  }

  @Test
  void anAxisReadAsAValueOverSymbolicDimsBuildsOnEveryTarget() throws Exception {
    // Every target's kernels for symbolic dims come in 32-bit and 64-bit index variants; the
    // 64-bit one once failed to build (an int64 position stored into the int32 output).
    EnumSet<Target> targets = EnumSet.of(Target.C, Target.JAVA, Target.OPENCL);
    if (NativeToolchain.fromEnvironment().findNvcc().isPresent()) {
      targets.add(Target.CUDA);
    }
    LibraryModel m =
        KernelDriver.generate(request(Specs.IndexValues.class).targets(targets).build()).get(0);
    assertThat(m.modules().keySet()).containsExactlyInAnyOrderElementsOf(targets);
    assertThat(m.javaKernelSource()).contains("(int)");
    Class<?> k =
        JavaSourceCompiler.compile(
            "dev.kernelgen.driver." + m.javaKernelClass(), m.javaKernelSource());
    float[] rows = {3, 9, 9, 1, -2, -5, -1, -1};
    for (String variant : new String[] {"argmax", "argmax" + KernelDriver.WIDE_SUFFIX}) {
      var method =
          java.util.Arrays.stream(k.getMethods())
              .filter(x -> x.getName().equals(variant))
              .findFirst();
      assertThat(method).as(variant).isPresent();
      try (Arena arena = Arena.ofConfined()) {
        MemorySegment x = arena.allocate(4L * rows.length);
        for (int i = 0; i < rows.length; i++) {
          x.setAtIndex(ValueLayout.JAVA_FLOAT, i, rows[i]);
        }
        MemorySegment out = arena.allocate(4 * 2);
        Object[] args = new Object[method.get().getParameterCount()];
        args[0] = x;
        args[1] = out;
        for (int a = 2; a < args.length; a++) {
          boolean wide = method.get().getParameterTypes()[a] == long.class;
          args[a] = wide ? (Object) (a == 2 ? 2L : 4L) : (Object) (a == 2 ? 2 : 4);
        }
        method.get().invoke(null, args);
        assertThat(out.getAtIndex(ValueLayout.JAVA_INT, 0)).as(variant).isEqualTo(1);
        assertThat(out.getAtIndex(ValueLayout.JAVA_INT, 1)).as(variant).isEqualTo(2);
      }
    }
  }

  @Test
  void aConfigurationForAnUnknownKnobIsAnError() {
    assertThatThrownBy(
            () ->
                KernelDriver.generate(
                    request(Specs.Small.class, Target.C)
                        .configurations(Map.of("SmallKernels/add/C", Map.of("tile", 4)))
                        .build()))
        .isInstanceOf(UserError.class)
        .hasMessageContaining("tile");
  }

  @Test
  void noTargetLeftIsAnError() {
    assertThatThrownBy(() -> KernelDriver.generate(request(Specs.Gpu.class, Target.C).build()))
        .isInstanceOf(UserError.class)
        .hasMessageContaining("GpuKernels")
        .hasMessageContaining("[CUDA]");
  }

  @Test
  void outputIsDeterministic() throws Exception {
    KernelDriver.generate(request(Specs.Small.class, Target.JAVA, Target.OPENCL).build());
    String first =
        Files.readString(tmp.resolve("resources/META-INF/kernels/SmallKernels/manifest.json"));
    KernelDriver.generate(request(Specs.Small.class, Target.JAVA, Target.OPENCL).build());
    assertThat(tmp.resolve("resources/META-INF/kernels/SmallKernels/manifest.json"))
        .content()
        .isEqualTo(first);
  }

  /** A spec with three mistakes fails one build with all three, each naming its spec method. */
  @Test
  void everyOperatorsMistakeIsReportedInOneFailure() {
    assertThatThrownBy(() -> KernelDriver.generate(request(Specs.Mistakes.class).build()))
        .isInstanceOf(UserError.class)
        .hasMessageStartingWith("3 errors in the kernel specs:\n1. ")
        .hasMessageContaining(
            "Mistakes.java: dev.kernelgen.driver.Specs$Mistakes.upperCaseDim(): dim 'N' must be a"
                + " lower-case Java identifier")
        .hasMessageContaining(
            "Mistakes.java: dev.kernelgen.driver.Specs$Mistakes.rowSum(): compute 'rowSum' uses"
                + " reduce axis 'k2' outside a reduction over it")
        .hasMessageContaining(
            "Mistakes.java: dev.kernelgen.driver.Specs$Mistakes.nothing() returned null")
        .hasMessageNotContaining("fine()");
    assertThat(tmp.resolve("resources")).doesNotExist();
  }
}
