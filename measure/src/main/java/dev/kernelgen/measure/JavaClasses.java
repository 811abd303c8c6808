package dev.kernelgen.measure;

import dev.kernelgen.diag.UserError;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.io.StringWriter;
import java.io.UncheckedIOException;
import java.net.URI;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.jar.JarEntry;
import java.util.jar.JarInputStream;
import java.util.jar.JarOutputStream;
import javax.tools.FileObject;
import javax.tools.ForwardingJavaFileManager;
import javax.tools.JavaCompiler;
import javax.tools.JavaFileManager;
import javax.tools.JavaFileObject;
import javax.tools.SimpleJavaFileObject;
import javax.tools.ToolProvider;

/**
 * Java kernel classes as bytes: generated source compiled in memory by the JDK's compiler into a
 * jar (a {@link BuildResult}'s binary), and a jar's classes loaded by a class loader of their own,
 * one per candidate, so that candidates of the same class name do not meet.
 */
final class JavaClasses {
  private JavaClasses() {}

  /** The jar of the classes {@code source} (the class {@code className}) compiles to. */
  static byte[] compile(String source, String className) {
    JavaCompiler javac = ToolProvider.getSystemJavaCompiler();
    if (javac == null) {
      throw new UserError("no Java compiler in this runtime (a JDK, not a JRE, runs the tuner)");
    }
    Map<String, ByteArrayOutputStream> classes = new TreeMap<>();
    var std = javac.getStandardFileManager(null, null, null);
    JavaFileManager files =
        new ForwardingJavaFileManager<>(std) {
          @Override
          public JavaFileObject getJavaFileForOutput(
              Location location, String name, JavaFileObject.Kind kind, FileObject sibling) {
            ByteArrayOutputStream bytes = new ByteArrayOutputStream();
            classes.put(name, bytes);
            return new SimpleJavaFileObject(
                URI.create("mem:///" + name.replace('.', '/') + kind.extension), kind) {
              @Override
              public OutputStream openOutputStream() {
                return bytes;
              }
            };
          }
        };
    JavaFileObject unit =
        new SimpleJavaFileObject(
            URI.create("mem:///" + className.replace('.', '/') + ".java"),
            JavaFileObject.Kind.SOURCE) {
          @Override
          public CharSequence getCharContent(boolean ignoreEncodingErrors) {
            return source;
          }
        };
    StringWriter errors = new StringWriter();
    boolean ok =
        javac
            .getTask(errors, files, null, List.of("-proc:none", "-nowarn"), null, List.of(unit))
            .call();
    if (!ok) {
      throw new UserError("javac failed: " + ChildProcess.tail(errors.toString()));
    }
    ByteArrayOutputStream jar = new ByteArrayOutputStream();
    try (JarOutputStream out = new JarOutputStream(jar)) {
      for (var e : classes.entrySet()) {
        out.putNextEntry(new JarEntry(e.getKey().replace('.', '/') + ".class"));
        out.write(e.getValue().toByteArray());
        out.closeEntry();
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return jar.toByteArray();
  }

  /** Class {@code className} of {@code jar}, loaded with the jar's other classes. */
  static Class<?> load(byte[] jar, String className) throws ClassNotFoundException {
    Map<String, byte[]> classes = new HashMap<>();
    try (JarInputStream in = new JarInputStream(new ByteArrayInputStream(jar))) {
      for (JarEntry e; (e = in.getNextJarEntry()) != null; ) {
        if (e.getName().endsWith(".class")) {
          String name = e.getName().substring(0, e.getName().length() - 6).replace('/', '.');
          classes.put(name, in.readAllBytes());
        }
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    ClassLoader loader =
        new ClassLoader(JavaClasses.class.getClassLoader()) {
          @Override
          protected Class<?> findClass(String name) throws ClassNotFoundException {
            byte[] b = classes.get(name);
            if (b == null) {
              throw new ClassNotFoundException(name);
            }
            return defineClass(name, b, 0, b.length);
          }
        };
    return Class.forName(className, true, loader);
  }
}
