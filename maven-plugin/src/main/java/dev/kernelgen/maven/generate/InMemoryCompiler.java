package dev.kernelgen.maven.generate;

import dev.kernelgen.diag.UserError;
import java.io.ByteArrayOutputStream;
import java.io.File;
import java.io.IOException;
import java.io.OutputStream;
import java.io.StringWriter;
import java.io.UncheckedIOException;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Collectors;
import javax.tools.Diagnostic;
import javax.tools.DiagnosticCollector;
import javax.tools.FileObject;
import javax.tools.ForwardingJavaFileManager;
import javax.tools.JavaCompiler;
import javax.tools.JavaFileManager;
import javax.tools.JavaFileObject;
import javax.tools.SimpleJavaFileObject;
import javax.tools.StandardJavaFileManager;
import javax.tools.ToolProvider;

/**
 * Compiles Java sources in memory with {@code javax.tools} and loads the classes: the user's spec
 * classes during the build, and generated launchers in tests. Nothing is written to disk.
 */
public final class InMemoryCompiler {
  private InMemoryCompiler() {}

  /**
   * The compiled classes: binary name to class file, the source each came from (by URI path), and a
   * loader that defines them.
   */
  public record Result(
      Map<String, byte[]> classes, Map<String, String> sources, ClassLoader loader) {}

  /** A source given as text. */
  public record Source(String path, String text) {}

  /**
   * Compiles source files against {@code classPath}; the loader's parent is {@code parent}.
   *
   * @throws UserError quoting the compiler's errors with file and line
   */
  public static Result compileFiles(List<Path> files, List<Path> classPath, ClassLoader parent) {
    JavaCompiler javac = javac();
    DiagnosticCollector<JavaFileObject> diagnostics = new DiagnosticCollector<>();
    StandardJavaFileManager std =
        javac.getStandardFileManager(diagnostics, Locale.ROOT, StandardCharsets.UTF_8);
    List<JavaFileObject> units = new ArrayList<>();
    std.getJavaFileObjectsFromPaths(files).forEach(units::add);
    return compile(javac, std, diagnostics, units, classPath, parent);
  }

  /** Compiles sources given as text. */
  public static Result compileSources(
      List<Source> sources, List<Path> classPath, ClassLoader parent) {
    JavaCompiler javac = javac();
    DiagnosticCollector<JavaFileObject> diagnostics = new DiagnosticCollector<>();
    StandardJavaFileManager std =
        javac.getStandardFileManager(diagnostics, Locale.ROOT, StandardCharsets.UTF_8);
    List<JavaFileObject> units = new ArrayList<>();
    for (Source s : sources) {
      units.add(
          new SimpleJavaFileObject(
              URI.create("string:///" + s.path()), JavaFileObject.Kind.SOURCE) {
            @Override
            public CharSequence getCharContent(boolean ignoreEncodingErrors) {
              return s.text();
            }
          });
    }
    return compile(javac, std, diagnostics, units, classPath, parent);
  }

  private static JavaCompiler javac() {
    JavaCompiler javac = ToolProvider.getSystemJavaCompiler();
    if (javac == null) {
      throw new UserError(
          "no Java compiler in this JVM ("
              + System.getProperty("java.home")
              + "): run Maven on a"
              + " JDK, not a JRE, to compile kernel specs");
    }
    return javac;
  }

  private static Result compile(
      JavaCompiler javac,
      StandardJavaFileManager std,
      DiagnosticCollector<JavaFileObject> diagnostics,
      List<JavaFileObject> units,
      List<Path> classPath,
      ClassLoader parent) {
    Map<String, ByteArrayOutputStream> out = new TreeMap<>();
    Map<String, String> sources = new TreeMap<>();
    JavaFileManager files =
        new ForwardingJavaFileManager<>(std) {
          @Override
          public JavaFileObject getJavaFileForOutput(
              Location location, String name, JavaFileObject.Kind kind, FileObject sibling) {
            if (sibling != null) {
              sources.put(name, sibling.toUri().getPath());
            }
            return new SimpleJavaFileObject(
                URI.create("mem:///" + name.replace('.', '/') + kind.extension), kind) {
              @Override
              public OutputStream openOutputStream() {
                return out.computeIfAbsent(name, n -> new ByteArrayOutputStream());
              }
            };
          }
        };
    List<String> options = new ArrayList<>();
    options.add("-classpath");
    options.add(
        classPath.stream().map(Path::toString).collect(Collectors.joining(File.pathSeparator)));
    options.addAll(List.of("-proc:none", "-parameters", "-encoding", "UTF-8", "-g"));
    StringWriter log = new StringWriter();
    boolean ok = javac.getTask(log, files, diagnostics, options, null, units).call();
    try {
      files.close();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    if (!ok) {
      String errors =
          diagnostics.getDiagnostics().stream()
              .filter(d -> d.getKind() == Diagnostic.Kind.ERROR)
              .map(InMemoryCompiler::format)
              .collect(Collectors.joining("\n"));
      throw new UserError(
          "kernel specs do not compile:\n" + (errors.isEmpty() ? log.toString() : errors));
    }
    Map<String, byte[]> classes = new TreeMap<>();
    out.forEach((k, v) -> classes.put(k, v.toByteArray()));
    return new Result(classes, sources, new MemoryClassLoader(classes, parent));
  }

  private static String format(Diagnostic<? extends JavaFileObject> d) {
    String file = d.getSource() == null ? "" : Path.of(d.getSource().toUri().getPath()).toString();
    return file + ":" + d.getLineNumber() + ": error: " + d.getMessage(Locale.ROOT);
  }

  /** Defines the compiled classes; everything else comes from the parent. */
  private static final class MemoryClassLoader extends ClassLoader {
    private final Map<String, byte[]> classes;

    MemoryClassLoader(Map<String, byte[]> classes, ClassLoader parent) {
      super(parent);
      this.classes = classes;
    }

    @Override
    protected Class<?> findClass(String name) throws ClassNotFoundException {
      byte[] b = classes.get(name);
      if (b == null) {
        throw new ClassNotFoundException(name);
      }
      return defineClass(name, b, 0, b.length);
    }
  }
}
