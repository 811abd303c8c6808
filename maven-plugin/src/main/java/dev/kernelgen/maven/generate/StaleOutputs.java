package dev.kernelgen.maven.generate;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Stream;

/**
 * What an earlier generation left in the project's class output: Maven copies the generated
 * resources there and compiles the launchers there, but never removes what a later generation no
 * longer makes (a renamed library's kernels and launcher classes stayed in the jar until {@code mvn
 * clean}). The files of the generated directories before a generation, less those after it, are
 * removed from the class output: resources at the same path, sources as their classes (nested ones
 * included). Nothing outside the class output is touched, and no link is followed.
 */
final class StaleOutputs {
  private StaleOutputs() {}

  /** The regular files under {@code dir}, relative to it; empty where it does not exist. */
  static Set<Path> files(Path dir) {
    Set<Path> out = new TreeSet<>();
    if (!Files.isDirectory(dir, LinkOption.NOFOLLOW_LINKS)) {
      return out;
    }
    try (Stream<Path> walk = Files.walk(dir)) {
      walk.filter(p -> Files.isRegularFile(p, LinkOption.NOFOLLOW_LINKS))
          .forEach(p -> out.add(dir.relativize(p)));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return out;
  }

  /**
   * Removes from {@code s.classesDirectory()} the resources in {@code oldResources} and the classes
   * of the sources in {@code oldSources} that the generation just made no longer has; how many
   * files it removed.
   */
  static int remove(GenerateSettings s, Set<Path> oldResources, Set<Path> oldSources) {
    Path classes = s.classesDirectory();
    if (classes == null || !Files.isDirectory(classes, LinkOption.NOFOLLOW_LINKS)) {
      return 0;
    }
    int removed = 0;
    Set<Path> resources = files(s.resourcesOutput());
    for (Path p : oldResources) {
      if (!resources.contains(p)) {
        removed += delete(classes.resolve(p)) ? 1 : 0;
      }
    }
    Set<Path> sources = files(s.sourcesOutput());
    for (Path p : oldSources) {
      String name = p.getFileName().toString();
      if (sources.contains(p) || !name.endsWith(".java")) {
        continue;
      }
      String type = name.substring(0, name.length() - ".java".length());
      Path dir = p.getParent() == null ? classes : classes.resolve(p.getParent());
      removed += delete(dir.resolve(type + ".class")) ? 1 : 0;
      if (Files.isDirectory(dir, LinkOption.NOFOLLOW_LINKS)) {
        try (DirectoryStream<Path> nested = Files.newDirectoryStream(dir, type + "$*.class")) {
          for (Path c : nested) {
            removed += delete(c) ? 1 : 0;
          }
        } catch (IOException e) {
          throw new UncheckedIOException(e);
        }
      }
    }
    return removed;
  }

  /** Deletes a regular file (a link itself, never its target); whether there was one. */
  private static boolean delete(Path p) {
    try {
      return Files.isRegularFile(p, LinkOption.NOFOLLOW_LINKS) && Files.deleteIfExists(p);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
