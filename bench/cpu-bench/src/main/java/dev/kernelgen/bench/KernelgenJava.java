package dev.kernelgen.bench;

import static dev.kernelgen.te.TE.FLOAT32;
import static dev.kernelgen.te.TE.placeholder;

import dev.kernelgen.annotations.Target;
import dev.kernelgen.autosched.AutoScheduler;
import dev.kernelgen.codegen.JavaCodegen;
import dev.kernelgen.lower.Lower;
import dev.kernelgen.runtime.KernelBinary;
import dev.kernelgen.runtime.KernelFunction;
import dev.kernelgen.runtime.KernelModule;
import dev.kernelgen.runtime.KernelSignature;
import dev.kernelgen.runtime.java.JavaDevice;
import dev.kernelgen.schedule.Schedule;
import dev.kernelgen.te.Tensor;
import dev.kernelgen.tir.PrimFunc;
import dev.kernelgen.topi.DepthwiseSchedules;
import dev.kernelgen.topi.Nn;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
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
import javax.tools.ToolProvider;

/**
 * The generated Java kernels in the CPU benchmark: the same operator and CPU schedule as {@link
 * KernelgenDepthwise} ({@link DepthwiseSchedules#cpu}), printed by the Java target, compiled in
 * memory with javac and run by the runtime's Java device, as an application's launcher runs them
 * where no native library fits. {@code -Dkernels.bench.dumpJava=DIR} writes each source there.
 */
public final class KernelgenJava implements OursKernel {
  private final int vector;

  /** Whether the schedule is the auto-scheduler's untuned pick for Java instead of the template. */
  private final boolean generated;

  public KernelgenJava(int vector) {
    this(vector, false);
  }

  public KernelgenJava(int vector, boolean generated) {
    this.vector = vector;
    this.generated = generated;
  }

  @Override
  public String name() {
    return "kernelgen Java (generated Java kernels on the runtime's Java device"
        + (generated ? "; the auto-scheduler's untuned pick, no template)" : ")");
  }

  @Override
  public DepthwiseImpl create(Workload w, boolean fused) {
    Tensor in = placeholder("Input", FLOAT32, w.n(), w.c(), w.h(), w.w());
    Tensor filter = placeholder("Filter", FLOAT32, w.c(), w.multiplier(), w.kernel(), w.kernel());
    Tensor scale = placeholder("Scale", FLOAT32, w.outChannels());
    Tensor shift = placeholder("Shift", FLOAT32, w.outChannels());
    dev.kernelgen.topi.Padding pad =
        new dev.kernelgen.topi.Padding(w.padTop(), w.padLeft(), w.padBottom(), w.padRight());
    Tensor conv = Nn.depthwiseConv2dNchw(in, filter, w.stride(), w.stride(), pad, 1);
    Tensor out = fused ? Nn.relu(Nn.scaleShift(conv, scale, shift)) : conv;
    Schedule s =
        generated
            ? AutoScheduler.untuned(Target.JAVA, List.of(out))
            : DepthwiseSchedules.cpu(conv, out, vector, Target.JAVA);
    List<Tensor> args = fused ? List.of(in, filter, scale, shift, out) : List.of(in, filter, out);
    String name = fused ? "depthwise_fused" : "depthwise";
    PrimFunc f = Lower.lower(s, name, args, Target.JAVA, null);
    String cls = "BenchJava_" + w.name().replaceAll("[^A-Za-z0-9]+", "_") + (fused ? "_f" : "");
    String source = JavaCodegen.generate(List.of(f), "", cls);
    dump(cls, source);
    KernelModule module =
        JavaDevice.instance().loadModule(new KernelBinary.Java(compile(cls, source)));
    KernelFunction fn =
        module.function(
            name,
            new KernelSignature(
                new ArrayList<>(
                    Collections.nCopies(f.params().size(), KernelSignature.ParamKind.POINTER))));
    return new KernelgenDepthwise.Prepared(w, fused, fn);
  }

  private static void dump(String cls, String source) {
    String dir = System.getProperty("kernels.bench.dumpJava");
    if (dir == null) {
      return;
    }
    try {
      Files.createDirectories(Path.of(dir));
      Files.writeString(Path.of(dir, cls + ".java"), source);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** Compiles one class of the unnamed package in memory and loads it. */
  static Class<?> compile(String className, String source) {
    JavaCompiler javac = ToolProvider.getSystemJavaCompiler();
    if (javac == null) {
      throw new IllegalStateException("no system Java compiler: run the benchmark on a JDK");
    }
    DiagnosticCollector<JavaFileObject> diagnostics = new DiagnosticCollector<>();
    Map<String, ByteArrayOutputStream> classes = new HashMap<>();
    JavaFileManager files =
        new ForwardingJavaFileManager<>(javac.getStandardFileManager(diagnostics, null, null)) {
          @Override
          public JavaFileObject getJavaFileForOutput(
              Location location, String name, JavaFileObject.Kind kind, FileObject sibling) {
            return new SimpleJavaFileObject(URI.create("mem:///" + name + kind.extension), kind) {
              @Override
              public OutputStream openOutputStream() {
                return classes.computeIfAbsent(name, n -> new ByteArrayOutputStream());
              }
            };
          }
        };
    JavaFileObject unit =
        new SimpleJavaFileObject(
            URI.create("string:///" + className + ".java"), JavaFileObject.Kind.SOURCE) {
          @Override
          public CharSequence getCharContent(boolean ignoreEncodingErrors) {
            return source;
          }
        };
    boolean ok =
        javac.getTask(null, files, diagnostics, List.of("-proc:none"), null, List.of(unit)).call();
    if (!ok) {
      throw new IllegalStateException(
          "generated Java " + className + " does not compile: " + diagnostics.getDiagnostics());
    }
    ClassLoader loader =
        new ClassLoader(KernelgenJava.class.getClassLoader()) {
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
      throw new IllegalStateException("generated Java does not declare " + className, e);
    }
  }
}
