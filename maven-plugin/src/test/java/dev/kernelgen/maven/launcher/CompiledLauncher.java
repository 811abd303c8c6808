package dev.kernelgen.maven.launcher;

import dev.kernelgen.annotations.Target;
import dev.kernelgen.driver.LibraryModel;
import dev.kernelgen.maven.generate.InMemoryCompiler;
import dev.kernelgen.runtime.Device;
import java.io.File;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/** A launcher generated from a test spec and compiled in memory, called through reflection. */
record CompiledLauncher(Class<?> type) {
  static CompiledLauncher build(Class<?> spec, String className, Path dir, Target... targets)
      throws Exception {
    Path res = dir.resolve("res");
    LibraryModel m = LauncherGeneratorTest.model(spec, res, targets);
    List<InMemoryCompiler.Source> sources = new ArrayList<>();
    for (LauncherGenerator.GeneratedSource s : LauncherGenerator.generate(m)) {
      sources.add(new InMemoryCompiler.Source(s.path(), s.content()));
    }
    List<Path> cp =
        Arrays.stream(System.getProperty("java.class.path").split(File.pathSeparator))
            .map(Path::of)
            .toList();
    ClassLoader resources =
        new URLClassLoader(
            new URL[] {res.toUri().toURL()}, CompiledLauncher.class.getClassLoader());
    InMemoryCompiler.Result r = InMemoryCompiler.compileSources(sources, cp, resources);
    return new CompiledLauncher(r.loader().loadClass("dev.kernelgen.maven.launcher." + className));
  }

  AutoCloseable load(Device d) throws Throwable {
    return (AutoCloseable) call(null, "load", new Class<?>[] {Device.class}, d);
  }

  /** Calls the public method {@code name} with these parameter types; rethrows its exception. */
  Object call(Object target, String name, Class<?>[] types, Object... args) throws Throwable {
    Method m = type.getMethod(name, types);
    try {
      return m.invoke(target, args);
    } catch (InvocationTargetException e) {
      throw e.getCause();
    }
  }
}
