package dev.kernelgen.testing;

import java.io.ByteArrayOutputStream;
import java.io.OutputStream;
import java.io.StringWriter;
import java.net.URI;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import javax.tools.DiagnosticCollector;
import javax.tools.FileObject;
import javax.tools.ForwardingJavaFileManager;
import javax.tools.JavaCompiler;
import javax.tools.JavaFileManager;
import javax.tools.JavaFileObject;
import javax.tools.SimpleJavaFileObject;
import javax.tools.StandardJavaFileManager;
import javax.tools.ToolProvider;

/** Compiles Java source in memory with javax.tools and loads the classes: for generated code. */
public final class JavaSourceCompiler {
  private JavaSourceCompiler() {}

  private static final JavaCompiler JAVAC = ToolProvider.getSystemJavaCompiler();

  /**
   * One file manager per test thread (they are not thread-safe), kept across compiles: it keeps the
   * class path's jars open and indexed, which a new one reads again for each of the thousand
   * kernels the tests compile.
   */
  private static final ThreadLocal<StandardJavaFileManager> FILES =
      ThreadLocal.withInitial(() -> JAVAC.getStandardFileManager(null, null, null));

  /**
   * Compiles {@code source}, which declares {@code className} (fully qualified), against the test
   * class path, and returns the loaded class. Fails with the diagnostics and the numbered source.
   */
  public static Class<?> compile(String className, String source) {
    JavaCompiler javac = JAVAC;
    if (javac == null) {
      throw new IllegalStateException("no system Java compiler: run the tests on a JDK");
    }
    DiagnosticCollector<JavaFileObject> diagnostics = new DiagnosticCollector<>();
    Map<String, ByteArrayOutputStream> classes = new HashMap<>();
    StandardJavaFileManager std = FILES.get();
    JavaFileManager files =
        new ForwardingJavaFileManager<>(std) {
          @Override
          public JavaFileObject getJavaFileForOutput(
              Location location, String name, JavaFileObject.Kind kind, FileObject sibling) {
            return new SimpleJavaFileObject(
                URI.create("mem:///" + name.replace('.', '/') + kind.extension), kind) {
              @Override
              public OutputStream openOutputStream() {
                return classes.computeIfAbsent(name, n -> new ByteArrayOutputStream());
              }
            };
          }
        };
    JavaFileObject unit =
        new SimpleJavaFileObject(
            URI.create("string:///" + className.replace('.', '/') + ".java"),
            JavaFileObject.Kind.SOURCE) {
          @Override
          public CharSequence getCharContent(boolean ignoreEncodingErrors) {
            return source;
          }
        };
    StringWriter log = new StringWriter();
    List<String> options =
        List.of("-classpath", System.getProperty("java.class.path"), "-proc:none", "-Xlint:none");
    boolean ok = javac.getTask(log, files, diagnostics, options, null, List.of(unit)).call();
    if (!ok) {
      StringBuilder msg = new StringBuilder("generated Java does not compile:\n");
      diagnostics.getDiagnostics().forEach(d -> msg.append(d).append('\n'));
      msg.append(log);
      String[] lines = source.split("\n", -1);
      for (int i = 0; i < lines.length; i++) {
        msg.append(String.format("%4d  %s%n", i + 1, lines[i]));
      }
      throw new AssertionError(msg.toString());
    }
    ClassLoader loader =
        new ClassLoader(JavaSourceCompiler.class.getClassLoader()) {
          @Override
          protected Class<?> findClass(String name) throws ClassNotFoundException {
            ByteArrayOutputStream b = classes.get(name);
            if (b == null) {
              throw new ClassNotFoundException(name);
            }
            byte[] bytes = b.toByteArray();
            return defineClass(name, bytes, 0, bytes.length);
          }
        };
    try {
      return loader.loadClass(className);
    } catch (ClassNotFoundException e) {
      throw new AssertionError("the source does not declare " + className, e);
    }
  }
}
