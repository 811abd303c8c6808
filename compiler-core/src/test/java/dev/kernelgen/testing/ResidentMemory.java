package dev.kernelgen.testing;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/** The resident memory of this process (VmRSS), for leak bounds in long tests. */
public final class ResidentMemory {
  private ResidentMemory() {}

  /** After a few garbage collections, so that only what is still referenced counts. */
  public static long afterGc() throws InterruptedException {
    for (int i = 0; i < 3; i++) {
      System.gc();
      Thread.sleep(100);
    }
    return now();
  }

  /** Resident bytes now, from /proc (0 where there is none, so no bound is checked). */
  public static long now() {
    try {
      for (String line : Files.readAllLines(Path.of("/proc/self/status"))) {
        if (line.startsWith("VmRSS:")) {
          return Long.parseLong(line.replaceAll("[^0-9]", "")) * 1024;
        }
      }
    } catch (IOException | RuntimeException e) {
      // Not Linux.
    }
    return 0;
  }
}
