package dev.kernelgen.maven;

import dev.kernelgen.annotations.Target;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.EnumSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import org.apache.maven.artifact.DependencyResolutionRequiredException;
import org.apache.maven.plugin.MojoExecutionException;
import org.apache.maven.plugin.MojoFailureException;
import org.apache.maven.project.MavenProject;

/** Turning the goals' shared parameters into values: targets, the spec compile class path. */
final class MojoParameters {
  private MojoParameters() {}

  /** The targets named in {@code <targets>} ({@code kernels.targets}), comma-separated or not. */
  static Set<Target> targets(List<String> targets) throws MojoFailureException {
    Set<Target> out = EnumSet.noneOf(Target.class);
    for (String t : targets) {
      for (String part : t.split(",")) {
        String p = part.strip();
        if (p.isEmpty()) {
          continue;
        }
        try {
          out.add(Target.valueOf(p.toUpperCase(Locale.ROOT)));
        } catch (IllegalArgumentException e) {
          throw new MojoFailureException(
              "unknown target '"
                  + p
                  + "' in <targets> (kernels.targets); known targets: "
                  + Arrays.toString(Target.values()));
        }
      }
    }
    return out;
  }

  /**
   * The ISA levels of {@code <cpuIsaLevels>} ({@code kernels.cpuIsaLevels}), comma-separated or
   * not.
   */
  static List<String> isaLevels(List<String> levels) {
    List<String> out = new ArrayList<>();
    for (String l : levels == null ? List.<String>of() : levels) {
      for (String part : l.split(",")) {
        if (!part.isBlank()) {
          out.add(part.strip());
        }
      }
    }
    return out;
  }

  /** The compile class path without the project's own classes, which do not exist yet. */
  static List<Path> specClassPath(MavenProject project) throws MojoExecutionException {
    try {
      String own = project.getBuild().getOutputDirectory();
      List<Path> out = new ArrayList<>();
      for (String e : project.getCompileClasspathElements()) {
        if (!e.equals(own)) {
          out.add(Path.of(e));
        }
      }
      return out;
    } catch (DependencyResolutionRequiredException e) {
      throw new MojoExecutionException("compile dependencies are not resolved", e);
    }
  }
}
