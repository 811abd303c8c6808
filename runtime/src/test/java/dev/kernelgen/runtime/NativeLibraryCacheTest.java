package dev.kernelgen.runtime;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class NativeLibraryCacheTest {
  @TempDir Path dir;

  @Test
  void concurrentExtractionsOfTheSameLibraryAgreeAndLeaveOneCompleteFile() throws Exception {
    byte[] library = new byte[3 << 20]; // big enough that writes overlap
    new java.util.Random(7).nextBytes(library);
    int threads = 8;
    CyclicBarrier barrier = new CyclicBarrier(threads);
    ExecutorService pool = Executors.newFixedThreadPool(threads);
    try {
      for (int round = 0; round < 5; round++) {
        Path cacheDir = dir.resolve("round" + round);
        List<Future<Path>> results = new ArrayList<>();
        for (int t = 0; t < threads; t++) {
          // A cache per thread, as two processes would each have.
          NativeLibraryCache cache = new NativeLibraryCache(cacheDir);
          results.add(
              pool.submit(
                  () -> {
                    barrier.await();
                    return cache.extract(library);
                  }));
        }
        Path expected = cacheDir.resolve(NativeLibraryCache.sha256(library) + ".so");
        for (Future<Path> f : results) {
          assertThat(f.get()).isEqualTo(expected);
        }
        assertThat(Files.readAllBytes(expected)).isEqualTo(library);
        try (Stream<Path> files = Files.list(cacheDir)) {
          assertThat(files).containsExactly(expected); // no temporary files left behind
        }
      }
    } finally {
      pool.shutdownNow();
    }
  }

  @Test
  void aDamagedFileIsReplaced() throws Exception {
    NativeLibraryCache cache = new NativeLibraryCache(dir);
    byte[] library = {1, 2, 3, 4};
    Path p = cache.extract(library);
    Files.write(p, new byte[] {9, 9, 9, 9});
    assertThat(cache.extract(library)).isEqualTo(p);
    assertThat(Files.readAllBytes(p)).isEqualTo(library);
  }

  @Test
  void differentLibrariesGetDifferentFiles() {
    NativeLibraryCache cache = new NativeLibraryCache(dir);
    assertThat(cache.extract(new byte[] {1})).isNotEqualTo(cache.extract(new byte[] {2}));
  }

  @Test
  void standardCacheIsUnderTheTemporaryDirectory() {
    assertThat(NativeLibraryCache.standard().directory().toString()).contains("kernelgen");
  }
}
