package dev.kernelgen.runtime.cpu;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.kernelgen.runtime.DeviceException;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.nio.file.attribute.UserPrincipal;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.stream.Stream;
import org.junit.jupiter.api.Assumptions;
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
  void aNewCacheDirectoryIsPrivate() throws Exception {
    Path d = dir.resolve("a/b/kernelgen");
    new NativeLibraryCache(d).extract(new byte[] {1, 2});
    assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(d)))
        .isEqualTo("rwx------");
  }

  @Test
  void aCacheDirectoryWritableByOthersIsRefused() throws Exception {
    Path d = Files.createDirectory(dir.resolve("shared"));
    Files.setPosixFilePermissions(d, PosixFilePermissions.fromString("rwxrwxrwx"));
    assertThatThrownBy(() -> new NativeLibraryCache(d).extract(new byte[] {1}))
        .isInstanceOf(DeviceException.class)
        .hasMessageContaining("kernel library cache " + d + " is writable by other users")
        .hasMessageContaining("rwxrwxrwx")
        .hasMessageContaining("chmod 700");
    try (Stream<Path> files = Files.list(d)) {
      assertThat(files).as("nothing written there").isEmpty();
    }
  }

  @Test
  void aCacheDirectoryOwnedBySomeoneElseIsRefused() throws Exception {
    Path d = Files.createDirectory(dir.resolve("theirs"));
    UserPrincipal nobody;
    try {
      nobody = d.getFileSystem().getUserPrincipalLookupService().lookupPrincipalByName("nobody");
      Files.setOwner(d, nobody);
    } catch (IOException e) {
      Assumptions.abort("cannot give a directory to user nobody here (not root): " + e);
      return;
    }
    assertThatThrownBy(() -> new NativeLibraryCache(d).extract(new byte[] {1}))
        .isInstanceOf(DeviceException.class)
        .hasMessageContaining(d + " is owned by nobody, not by this user");
  }

  @Test
  void aSymbolicLinkAsTheCacheDirectoryIsRefused() throws Exception {
    Path real = Files.createDirectory(dir.resolve("real"));
    Path link = Files.createSymbolicLink(dir.resolve("link"), real);
    assertThatThrownBy(() -> new NativeLibraryCache(link).extract(new byte[] {1}))
        .isInstanceOf(DeviceException.class)
        .hasMessageContaining(link + " is a symbolic link");
  }

  @Test
  void aSymbolicLinkInPlaceOfTheLibraryIsRefused() throws Exception {
    byte[] library = {5, 6, 7};
    Path elsewhere = Files.write(dir.resolve("elsewhere.so"), library);
    Path cacheDir = dir.resolve("cache");
    NativeLibraryCache cache = new NativeLibraryCache(cacheDir);
    cache.extract(new byte[] {0}); // creates the directory
    Path target = cacheDir.resolve(NativeLibraryCache.sha256(library) + ".so");
    Files.createSymbolicLink(target, elsewhere);
    assertThatThrownBy(() -> cache.extract(library))
        .isInstanceOf(DeviceException.class)
        .hasMessageContaining(target + " is a symbolic link; refusing to load it");
  }

  @Test
  void aTamperedCachedFileIsDetectedAndReplaced() throws Exception {
    NativeLibraryCache cache = new NativeLibraryCache(dir.resolve("c"));
    byte[] library = new byte[100_000];
    new java.util.Random(3).nextBytes(library);
    Path p = cache.extract(library);
    byte[] tampered = library.clone();
    tampered[50_000] ^= 1; // same size, one bit
    Files.write(p, tampered);
    assertThat(cache.extract(library, NativeLibraryCache.sha256(library))).isEqualTo(p);
    assertThat(Files.readAllBytes(p)).isEqualTo(library);
  }

  @Test
  void aLibraryWithoutTheLaunchersHashIsRefused() {
    NativeLibraryCache cache = new NativeLibraryCache(dir.resolve("c"));
    String other = NativeLibraryCache.sha256(new byte[] {2});
    assertThatThrownBy(() -> cache.extract(new byte[] {1}, other))
        .isInstanceOf(DeviceException.class)
        .hasMessageContaining("embedded kernel library is damaged")
        .hasMessageContaining(other);
  }

  @Test
  void anUnwritableDirectoryGivesAClearError() throws Exception {
    // A file where a parent directory should be: no user, root included, can create the cache.
    Path file = Files.write(dir.resolve("file"), new byte[] {1});
    Path d = file.resolve("kernelgen");
    assertThatThrownBy(() -> new NativeLibraryCache(d).extract(new byte[] {1}))
        .isInstanceOf(DeviceException.class)
        .hasMessageContaining("cannot write the kernel library cache (" + d + ": ")
        .hasMessageContaining("-Dkernelgen.cache.dir");
  }

  @Test
  void aPrivateFallbackIsUsedWhenTheFirstDirectoryCannotBeWritten() throws Exception {
    Path file = Files.write(dir.resolve("file"), new byte[] {1});
    Path fallback = dir.resolve("fallback");
    NativeLibraryCache cache = new NativeLibraryCache(List.of(file.resolve("kernelgen"), fallback));
    assertThat(cache.extract(new byte[] {4})).startsWith(fallback);
  }

  @Test
  void differentLibrariesGetDifferentFiles() {
    NativeLibraryCache cache = new NativeLibraryCache(dir);
    assertThat(cache.extract(new byte[] {1})).isNotEqualTo(cache.extract(new byte[] {2}));
  }

  @Test
  void theStandardCacheIsPerUser() {
    String d = NativeLibraryCache.standard().directory().toString();
    assertThat(d).contains("kernelgen");
    if (System.getProperty(NativeLibraryCache.DIR_PROPERTY) == null) {
      assertThat(d).doesNotContain("kernelgen-cache"); // the old directory shared by all users
    }
  }
}
