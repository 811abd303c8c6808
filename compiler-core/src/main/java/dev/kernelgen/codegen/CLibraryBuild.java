package dev.kernelgen.codegen;

import dev.kernelgen.diag.UserError;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.function.Function;

/**
 * The C target's shared libraries: one C source compiled by cc for one ISA level ({@code
 * -march=level}; an aarch64 level by the aarch64 compiler), or for several levels at once, one
 * compile per processor.
 */
final class CLibraryBuild {
  private CLibraryBuild() {}

  /**
   * Linker flags of every shared library: the libgcc helpers linked in, and the symbol versions of
   * glibc kept to what the code needs. (libgomp stays a dynamic dependency: Debian's and most
   * distributions' {@code libgomp.a} is not position-independent; the runtime checks for it.)
   */
  static final List<String> LINK_FLAGS = List.of("-static-libgcc", "-Wl,--as-needed");

  /** Runs the C compiles of several ISA levels at once, one per processor. */
  private static final ExecutorService COMPILES =
      Executors.newFixedThreadPool(
          Math.max(1, Runtime.getRuntime().availableProcessors()),
          Thread.ofPlatform().daemon().name("kernelgen-cc-", 0).factory());

  /** See {@link NativeToolchain#compileSharedLibrary(String, Path, String)}. */
  static void build(NativeToolchain tc, String cSource, Path out, String isaLevel) {
    Path tool = tc.ccFor(isaLevel);
    Path dir = CompilerProcess.tempDir("kernelgen-cc");
    Path src = dir.resolve("kernels.c");
    CompilerProcess.write(src, cSource);
    List<String> cmd = new ArrayList<>();
    cmd.add(tool.toString());
    cmd.addAll(tc.cFlags());
    cmd.add("-march=" + isaLevel);
    cmd.add(src.toString());
    cmd.add("-o");
    cmd.add(out.toAbsolutePath().toString());
    cmd.addAll(LINK_FLAGS);
    cmd.add("-lm");
    CompilerProcess.run(cmd, src, tc.timeoutSeconds());
    CompilerProcess.delete(dir);
  }

  /** See {@link NativeToolchain#compileSharedLibraries(Map, Function)}. */
  static Map<String, Path> buildAll(
      NativeToolchain tc, Map<String, String> sourceByLevel, Function<String, Path> out) {
    // Every compiler the levels need, before any compile starts.
    sourceByLevel.keySet().forEach(tc::ccFor);
    Map<String, Path> paths = new LinkedHashMap<>();
    for (String level : sourceByLevel.keySet()) {
      paths.put(level, out.apply(level));
    }
    // The last level first: levels are listed narrowest first (v2, v3, v4), and the widest compiles
    // longest (the conv-bn-swish sample's library: 14 s at x86-64-v4 against 5 s at v2 and v3), so
    // that on two processors it runs beside the others rather than after them.
    List<String> lastFirst = new ArrayList<>(paths.keySet());
    Collections.reverse(lastFirst);
    Map<String, CompletableFuture<Void>> started = new LinkedHashMap<>();
    for (String level : lastFirst) {
      started.put(
          level,
          CompletableFuture.runAsync(
              () -> {
                try {
                  build(tc, sourceByLevel.get(level), paths.get(level), level);
                } catch (UserError u) {
                  throw new UserError("ISA level " + level + ": " + u.getMessage(), u);
                }
              },
              COMPILES));
    }
    // Failures in the levels' order, whichever compile ended first.
    Map<String, CompletableFuture<Void>> inLevelOrder = new LinkedHashMap<>();
    paths.keySet().forEach(level -> inLevelOrder.put(level, started.get(level)));
    InOrder.join(inLevelOrder);
    return paths;
  }
}
