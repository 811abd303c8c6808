package dev.kernelgen.driver;

import static org.assertj.core.api.Assertions.assertThat;

import dev.kernelgen.annotations.Target;
import dev.kernelgen.codegen.NativeToolchain;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Random;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * With {@code armv8-a} among the ISA levels and an aarch64 C cross compiler, a build embeds an
 * aarch64 library beside the x86-64 ones: an AArch64 ELF that needs no glibc above the ceiling,
 * with its schedules ranked as for AVX2, and whose kernels, run under qemu-aarch64, equal a
 * reference computed here on random data.
 */
class Aarch64LibraryTest {
  @TempDir Path tmp;

  private static final NativeToolchain TC =
      NativeToolchain.fromEnvironment().withIsaLevels(List.of("x86-64-v3", "armv8-a"));

  @Test
  void theArmLibraryIsAnAarch64ElfThatComputesTheOperatorUnderEmulation() throws Exception {
    Assumptions.assumeTrue(
        TC.findAarch64Cc().isPresent(),
        "no aarch64 C cross compiler (aarch64-linux-gnu-gcc) on PATH: skipped; apt-get install"
            + " gcc-aarch64-linux-gnu");
    Optional<Path> qemu = onPath("qemu-aarch64");
    check(Specs.MatmulLayer.class, "matmul", qemu);
    check(Specs.ConvLayer.class, "conv", qemu);
  }

  @Test
  void anArmLevelWithoutItsCompilerNamesWhatIsMissing() {
    NativeToolchain none =
        NativeToolchain.fromEnvironment()
            .withSearchPath(List.of(tmp))
            .withIsaLevels(List.of("armv8-a"));
    if (System.getProperty("os.arch").equals("aarch64")) {
      return; // there the C compiler itself builds it
    }
    org.assertj.core.api.Assertions.assertThatThrownBy(none::aarch64Cc)
        .hasMessageContaining("aarch64 C compiler")
        .hasMessageContaining("aarch64-linux-gnu-gcc")
        .hasMessageContaining("withAarch64Cc");
  }

  private void check(Class<?> spec, String op, Optional<Path> qemu) throws Exception {
    Path resources = tmp.resolve(op);
    LibraryModel m =
        KernelDriver.generate(
                GenerateRequest.builder()
                    .spec(spec)
                    .targets(EnumSet.of(Target.C))
                    .toolchain(TC)
                    .resourcesDir(resources)
                    .build())
            .get(0);
    Path dir = resources.resolve(m.resourceDir());
    LibraryModel.SharedLibrary arm =
        m.modules().get(Target.C).sharedLibraries().stream()
            .filter(l -> l.isaLevel().equals("armv8-a"))
            .findFirst()
            .orElseThrow();
    assertThat(arm.path()).contains("-aarch64/armv8-a/");
    Path so = dir.resolve(arm.path());
    byte[] elf = Files.readAllBytes(so);
    // e_machine (offset 18, little-endian): 183 is EM_AARCH64.
    assertThat((elf[18] & 0xff) | (elf[19] & 0xff) << 8).as("ELF machine").isEqualTo(183);
    glibcAtMost(so, PortableCLibrariesTest.GLIBC_CEILING);
    if (qemu.isEmpty()) {
      Assumptions.abort(
          "qemu-aarch64 not on PATH: the library was not run; apt-get install qemu-user");
    }
    LibraryModel.Operator operator = m.operators().get(0);
    LibraryModel.Build build = operator.variants().get(0).builds().get(Target.C);
    LibraryModel.Kernel kernel = build.kernels().get(0);
    assertThat(kernel.params()).as("inputs, then the output").hasSize(operator.inputs().size() + 1);
    Random rnd = new Random(7);
    List<float[]> inputs = new ArrayList<>();
    List<Path> files = new ArrayList<>();
    for (LibraryModel.Argument a : operator.inputs()) {
      float[] x = new float[(int) count(a)];
      for (int i = 0; i < x.length; i++) {
        x[i] = rnd.nextFloat() * 2 - 1;
      }
      inputs.add(x);
      Path f = tmp.resolve(op + "-" + a.name() + ".bin");
      Files.write(f, bytes(x));
      files.add(f);
    }
    LibraryModel.Argument out = operator.outputs().get(0);
    Path outFile = tmp.resolve(op + "-out.bin");
    Path harness = tmp.resolve(op + "-harness");
    run(
        List.of(
            TC.aarch64Cc().toString(),
            "-O2",
            "-o",
            harness.toString(),
            writeHarness(kernel.name(), inputs.size(), count(out)).toString(),
            "-ldl"),
        Map.of());
    List<String> cmd =
        new ArrayList<>(
            List.of(
                qemu.get().toString(),
                "-L",
                "/usr/aarch64-linux-gnu",
                harness.toString(),
                so.toString()));
    files.forEach(f -> cmd.add(f.toString()));
    cmd.add(outFile.toString());
    run(cmd, Map.of("OMP_NUM_THREADS", "2"));
    float[] got = floats(Files.readAllBytes(outFile));
    float[] want = op.equals("conv") ? convRelu(inputs.get(0), inputs.get(1)) : matmul(inputs);
    assertThat(got).hasSameSizeAs(want);
    for (int i = 0; i < want.length; i++) {
      assertThat(got[i])
          .as("%s element %d", op, i)
          .isCloseTo(want[i], org.assertj.core.data.Offset.offset(1e-3f));
    }
  }

  private static long count(LibraryModel.Argument a) {
    long n = 1;
    for (var d : a.shape()) {
      n *= ((dev.kernelgen.te.IntImm) d).value();
    }
    return n;
  }

  /** A main that loads the library, reads the inputs, calls the kernel and writes its output. */
  private Path writeHarness(String kernel, int inputs, long outCount) throws IOException {
    StringBuilder params = new StringBuilder();
    StringBuilder args = new StringBuilder();
    for (int i = 0; i <= inputs; i++) {
      params.append(i == 0 ? "" : ", ").append("float*");
      args.append(i == 0 ? "" : ", ").append("buf[").append(i).append("]");
    }
    String src =
        """
        #include <dlfcn.h>
        #include <stdint.h>
        #include <stdio.h>
        #include <stdlib.h>
        typedef int64_t (*kernel_t)(%1$s);
        static float* load(const char* path, long* n) {
          FILE* f = fopen(path, "rb");
          if (!f) { perror(path); exit(2); }
          fseek(f, 0, SEEK_END); *n = ftell(f) / 4; fseek(f, 0, SEEK_SET);
          float* p = malloc(*n * 4);
          if (fread(p, 4, *n, f) != (size_t) *n) exit(3);
          fclose(f);
          return p;
        }
        int main(int argc, char** argv) {
          void* lib = dlopen(argv[1], RTLD_NOW);
          if (!lib) { fprintf(stderr, "%%s\\n", dlerror()); return 4; }
          kernel_t k = (kernel_t) dlsym(lib, "%2$s");
          if (!k) { fprintf(stderr, "no %2$s\\n"); return 5; }
          float* buf[%3$d];
          long n;
          /* The kernel takes the inputs, then the output. */
          for (int i = 0; i < %4$d; i++) buf[i] = load(argv[2 + i], &n);
          buf[%4$d] = calloc(%5$d, 4);
          if (k(%6$s) != 0) { fprintf(stderr, "kernel status\\n"); return 6; }
          FILE* o = fopen(argv[2 + %4$d], "wb");
          fwrite(buf[%4$d], 4, %5$d, o);
          fclose(o);
          return 0;
        }
        """
            .formatted(params, kernel, inputs + 1, inputs, outCount, args);
    Path c = tmp.resolve(kernel + "-harness.c");
    Files.writeString(c, src);
    return c;
  }

  private static float[] matmul(List<float[]> in) {
    float[] a = in.get(0), b = in.get(1), c = new float[64 * 80];
    for (int i = 0; i < 64; i++) {
      for (int j = 0; j < 80; j++) {
        float s = 0;
        for (int k = 0; k < 96; k++) {
          s += a[i * 96 + k] * b[k * 80 + j];
        }
        c[i * 80 + j] = s;
      }
    }
    return c;
  }

  /** Specs.ConvLayer: [1,32,46,46] by [32,32,3,3], padding 1, then ReLU. */
  private static float[] convRelu(float[] x, float[] w) {
    int c = 32, h = 46;
    float[] y = new float[c * h * h];
    for (int o = 0; o < c; o++) {
      for (int i = 0; i < h; i++) {
        for (int j = 0; j < h; j++) {
          float s = 0;
          for (int ci = 0; ci < c; ci++) {
            for (int di = 0; di < 3; di++) {
              for (int dj = 0; dj < 3; dj++) {
                int r = i + di - 1, q = j + dj - 1;
                if (r >= 0 && r < h && q >= 0 && q < h) {
                  s += x[(ci * h + r) * h + q] * w[((o * c + ci) * 3 + di) * 3 + dj];
                }
              }
            }
          }
          y[(o * h + i) * h + j] = Math.max(s, 0f);
        }
      }
    }
    return y;
  }

  private static void glibcAtMost(Path so, String ceiling) throws Exception {
    String dyn = run(List.of("readelf", "-d", "-W", so.toString()), Map.of());
    Matcher n = Pattern.compile("\\(NEEDED\\)\\s+Shared library: \\[([^]]+)]").matcher(dyn);
    while (n.find()) {
      assertThat(n.group(1))
          .as("needed")
          .isIn("libc.so.6", "libm.so.6", "libgomp.so.1", "ld-linux-aarch64.so.1");
    }
    String syms = run(List.of("readelf", "--dyn-syms", "-W", so.toString()), Map.of());
    Matcher v = Pattern.compile("@@?GLIBC_([0-9.]+)").matcher(syms);
    while (v.find()) {
      assertThat(PortableCLibrariesTest.compareVersions(v.group(1), ceiling))
          .as("needs GLIBC_%s, above %s", v.group(1), ceiling)
          .isLessThanOrEqualTo(0);
    }
  }

  private static byte[] bytes(float[] x) {
    ByteBuffer b = ByteBuffer.allocate(x.length * 4).order(ByteOrder.LITTLE_ENDIAN);
    for (float f : x) {
      b.putFloat(f);
    }
    return b.array();
  }

  private static float[] floats(byte[] bytes) {
    ByteBuffer b = ByteBuffer.wrap(bytes).order(ByteOrder.LITTLE_ENDIAN);
    float[] x = new float[bytes.length / 4];
    for (int i = 0; i < x.length; i++) {
      x[i] = b.getFloat();
    }
    return x;
  }

  private static Optional<Path> onPath(String name) {
    for (String d : System.getenv().getOrDefault("PATH", "").split(":")) {
      Path p = Path.of(d.isEmpty() ? "." : d, name);
      if (Files.isExecutable(p)) {
        return Optional.of(p);
      }
    }
    return Optional.empty();
  }

  private static String run(List<String> cmd, Map<String, String> env) throws Exception {
    ProcessBuilder pb = new ProcessBuilder(cmd).redirectErrorStream(true);
    pb.environment().putAll(env);
    Process p = pb.start();
    String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    if (p.waitFor() != 0) {
      throw new IOException(String.join(" ", cmd) + " failed: " + out);
    }
    return out;
  }
}
