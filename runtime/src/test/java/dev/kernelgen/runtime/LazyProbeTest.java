package dev.kernelgen.runtime;

import static org.assertj.core.api.Assertions.assertThat;

import dev.kernelgen.annotations.Target;
import dev.kernelgen.runtime.launch.Launchers;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Asking for C or Java probes only those: in a fresh JVM that loads and runs a C and a Java kernel
 * the way a launcher does, no class of JCuda or JOCL (nor of the runtime's cuda and opencl
 * packages) is loaded, so the GPU driver and its signal handlers never enter the process.
 */
class LazyProbeTest {
  @TempDir Path dir;

  /** The child JVM: what a C and Java launcher's {@code load()} and a call do. */
  public static final class Child {
    public static void scale(MemorySegment x, int n) {
      for (int i = 0; i < n; i++) {
        x.setAtIndex(ValueLayout.JAVA_FLOAT, i, x.getAtIndex(ValueLayout.JAVA_FLOAT, i) * 2);
      }
    }

    public static void main(String[] args) throws Exception {
      Device c = Launchers.device("Lib", List.of(Target.C, Target.JAVA));
      if (c.target() != Target.C) {
        throw new AssertionError("expected the C device, got " + c.name());
      }
      KernelSignature sig =
          KernelSignature.of(KernelSignature.ParamKind.POINTER, KernelSignature.ParamKind.INT32);
      try (KernelModule m =
              c.loadModule(new KernelBinary.C("scale", Files.readAllBytes(Path.of(args[0]))));
          HostTensor x = HostTensor.of(new float[] {1, 2})) {
        m.function("scale", sig).launch(LaunchConfig.HOST, x, 2);
        Device jvm = Launchers.device("Lib", List.of(Target.JAVA));
        try (KernelModule j = jvm.loadModule(new KernelBinary.Java(Child.class))) {
          j.function("scale", sig).launch(LaunchConfig.HOST, x, 2);
        }
        System.out.println("result " + java.util.Arrays.toString(x.toFloatArray()));
      }
    }
  }

  @Test
  void cAndJavaNeverLoadJCudaOrJocl() throws Exception {
    Path lib = dir.resolve("scale.so");
    Files.write(
        lib,
        CCompiler.compile(
            dir, "void scale(float* x, int n) { for (int i = 0; i < n; i++) x[i] *= 2; }"));
    Path java = Path.of(System.getProperty("java.home"), "bin", "java");
    Process p =
        new ProcessBuilder(
                java.toString(),
                "-verbose:class",
                "--enable-native-access=ALL-UNNAMED",
                "-Djava.io.tmpdir=" + dir,
                "-cp",
                System.getProperty("java.class.path"),
                Child.class.getName(),
                lib.toString())
            .redirectErrorStream(true)
            .start();
    String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertThat(p.waitFor(60, TimeUnit.SECONDS)).isTrue();
    assertThat(p.exitValue()).as(tail(out)).isZero();
    assertThat(out).contains("result [4.0, 8.0]");
    List<String> gpuClasses =
        out.lines()
            .filter(
                l ->
                    l.contains("jcuda")
                        || l.contains("org.jocl")
                        || l.contains("dev.kernelgen.runtime.cuda.")
                        || l.contains("dev.kernelgen.runtime.opencl."))
            .toList();
    assertThat(gpuClasses).as("GPU classes loaded for C and Java").isEmpty();
    assertThat(out).contains("dev.kernelgen.runtime.cpu.CpuDevice");
  }

  private static String tail(String s) {
    return s.length() < 4000 ? s : s.substring(s.length() - 4000);
  }
}
