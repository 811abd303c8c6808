package dev.kernelgen.driver;

import static org.assertj.core.api.Assertions.assertThat;

import dev.kernelgen.annotations.Target;
import dev.kernelgen.codegen.NativeToolchain;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The C libraries a build embeds run on machines other than the build machine: one per ISA level,
 * each needing no more than the levels' instructions, an old glibc, and the libraries every Linux
 * has (libgomp, which the runtime checks at load, aside).
 */
class PortableCLibrariesTest {
  /** The newest glibc symbol version a library may need: Debian 10, RHEL 8 and Ubuntu 18.10 on. */
  static final String GLIBC_CEILING = "2.28";

  /**
   * The dynamic dependencies allowed: glibc's own, and libgomp (whose archive is not
   * position-independent; a machine without it gets the Java kernels, the reason logged).
   */
  static final Set<String> ALLOWED_NEEDED =
      Set.of(
          "libc.so.6",
          "libm.so.6",
          "libdl.so.2",
          "libpthread.so.0",
          "libgomp.so.1",
          "ld-linux-x86-64.so.2");

  @TempDir static Path tmp;
  static Path dir;
  static Map<String, Path> libraries = new LinkedHashMap<>();

  @BeforeAll
  static void build() {
    Assumptions.assumeTrue(
        NativeToolchain.fromEnvironment().findCc().isPresent(), "no C compiler on PATH: skipped");
    Assumptions.assumeTrue(tool("readelf") && tool("objdump"), "binutils not on PATH: skipped");
    LibraryModel m =
        KernelDriver.generate(
                GenerateRequest.builder()
                    .spec(Specs.Small.class, Path.of("src/main/kernels/java/Small.java"))
                    .targets(EnumSet.of(Target.C))
                    .configurations(Map.of("SmallKernels/add/C", Map.of("vector", 16)))
                    .resourcesDir(tmp.resolve("resources"))
                    .build())
            .get(0);
    dir = tmp.resolve("resources").resolve(m.resourceDir());
    for (LibraryModel.SharedLibrary l : m.modules().get(Target.C).sharedLibraries()) {
      libraries.put(l.isaLevel(), dir.resolve(l.path()));
    }
  }

  @Test
  void everyDefaultIsaLevelHasItsLibrary() {
    assertThat(libraries.keySet()).containsExactly("x86-64-v2", "x86-64-v3", "x86-64-v4");
    assertThat(libraries.get("x86-64-v3").toString())
        .endsWith("c/" + KernelDriver.platform() + "/x86-64-v3/libSmallKernels.so");
  }

  @Test
  void librariesNeedNoGlibcAboveTheCeilingAndNoUnusualLibrary() throws Exception {
    for (var e : libraries.entrySet()) {
      String syms = run("readelf", "--dyn-syms", "-W", e.getValue().toString());
      // Every versioned reference: name@VERSION_x.y (n).
      Matcher v = Pattern.compile("@@?([A-Z]+)_([0-9.]+)").matcher(syms);
      Set<String> versions = new TreeSet<>();
      while (v.find()) {
        versions.add(v.group(1) + "_" + v.group(2));
        if (v.group(1).equals("GLIBC")) {
          assertThat(compareVersions(v.group(2), GLIBC_CEILING))
              .as("%s needs GLIBC_%s, above the ceiling %s", e.getKey(), v.group(2), GLIBC_CEILING)
              .isLessThanOrEqualTo(0);
        }
      }
      assertThat(versions).as(e.getKey() + " (the parallel loop)").contains("GOMP_4.0");
      assertThat(versions)
          .as(e.getKey())
          .allMatch(x -> x.startsWith("GLIBC_") || x.startsWith("GOMP_") || x.startsWith("OMP_"));
      assertThat(syms).as(e.getKey()).doesNotContain("GLIBCXX").doesNotContain("GCC_");
      String dyn = run("readelf", "-d", "-W", e.getValue().toString());
      Matcher n = Pattern.compile("\\(NEEDED\\)\\s+Shared library: \\[([^]]+)]").matcher(dyn);
      List<String> needed = new ArrayList<>();
      while (n.find()) {
        needed.add(n.group(1));
      }
      assertThat(needed).as(e.getKey() + " needs").isSubsetOf(ALLOWED_NEEDED);
      assertThat(needed).as("libgcc is linked statically").doesNotContain("libgcc_s.so.1");
      assertThat(needed).as("no vector math library").doesNotContain("libmvec.so.1");
    }
  }

  @Test
  void onlyTheV4LibraryUsesAvx512Registers() throws Exception {
    assertThat(zmm("x86-64-v2")).isZero();
    assertThat(zmm("x86-64-v3")).as("the AVX2 library uses no AVX-512 register").isZero();
    assertThat(zmm("x86-64-v4")).as("the AVX-512 library of a 16-wide vector loop").isPositive();
    assertThat(disassembly("x86-64-v3")).contains("ymm");
    assertThat(disassembly("x86-64-v2")).doesNotContain("ymm");
  }

  static int compareVersions(String a, String b) {
    String[] x = a.split("\\."), y = b.split("\\.");
    for (int i = 0; i < Math.max(x.length, y.length); i++) {
      int p = i < x.length ? Integer.parseInt(x[i]) : 0;
      int q = i < y.length ? Integer.parseInt(y[i]) : 0;
      if (p != q) {
        return Integer.compare(p, q);
      }
    }
    return 0;
  }

  private static long zmm(String level) throws Exception {
    return disassembly(level).lines().filter(l -> l.contains("%zmm")).count();
  }

  private static String disassembly(String level) throws Exception {
    return run("objdump", "-d", "--no-show-raw-insn", libraries.get(level).toString());
  }

  private static boolean tool(String name) {
    try {
      run(name, "--version");
      return true;
    } catch (Exception e) {
      return false;
    }
  }

  static String run(String... cmd) throws IOException, InterruptedException {
    Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
    String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    if (p.waitFor() != 0) {
      throw new IOException(String.join(" ", cmd) + " failed: " + out);
    }
    return out;
  }
}
