package dev.kernelgen.runtime;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;

/** Compiles C source with the machine's cc into shared-library bytes, as the build would. */
public final class CCompiler {
  private CCompiler() {}

  public static byte[] compile(Path workDir, String source)
      throws IOException, InterruptedException {
    Path c = Files.createTempFile(workDir, "kernel", ".c");
    Path so = workDir.resolve(c.getFileName() + ".so");
    Files.writeString(c, source);
    Process p =
        new ProcessBuilder("cc", "-O2", "-shared", "-fPIC", "-o", so.toString(), c.toString())
            .redirectErrorStream(true)
            .start();
    String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    if (!p.waitFor(60, TimeUnit.SECONDS) || p.exitValue() != 0) {
      throw new IllegalStateException("cc failed:\n" + out);
    }
    return Files.readAllBytes(so);
  }
}
