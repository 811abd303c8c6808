package dev.kernelgen.maven.launcher;

import com.palantir.javapoet.ClassName;
import com.palantir.javapoet.JavaFile;
import com.palantir.javapoet.MethodSpec;
import com.palantir.javapoet.NameAllocator;
import com.palantir.javapoet.TypeSpec;
import dev.kernelgen.driver.LibraryModel;
import dev.kernelgen.driver.LibraryModel.Operator;
import java.util.ArrayList;
import java.util.List;

/**
 * Generates the launcher class of a kernel library: {@code load(Device)} and {@code load()}, and
 * per operator a method for host tensors, one for device tensors, and {@code allocate...} helpers
 * for the outputs. Output is deterministic: it depends only on the model, whose order is fixed.
 *
 * <p>The pieces, one concern each: {@link LauncherSkeleton} (fields, constructor, {@code load},
 * {@code close}, class javadoc), {@link ModuleLoading} (the kernels per target), {@link
 * OperatorMethods} (an operator's public methods), {@link ShapeChecks} (dims and dtype and shape
 * checks), {@link Dispatch} (per target, variant and index width, the kernels' launches), {@link
 * Signatures} (the kernel signature constants); identifiers come from {@link OperatorNames} and the
 * runtime's classes from {@link RuntimeTypes}.
 */
public final class LauncherGenerator {
  /** A generated source file: its path under the source root and its text. */
  public record GeneratedSource(String path, String content) {}

  private LauncherGenerator() {}

  /** The launcher's source and, with the JAVA target, the Java kernels' source. */
  public static List<GeneratedSource> generate(LibraryModel lib) {
    List<GeneratedSource> out = new ArrayList<>();
    String dir = lib.packageName().isEmpty() ? "" : lib.packageName().replace('.', '/') + "/";
    out.add(new GeneratedSource(dir + lib.name() + ".java", launcher(lib).toString()));
    if (lib.javaKernelSource() != null) {
      out.add(new GeneratedSource(dir + lib.javaKernelClass() + ".java", lib.javaKernelSource()));
    }
    return out;
  }

  /**
   * The launcher class of {@code lib}: the skeleton's members, each operator's public methods,
   * {@code close()}, each operator's private checks and launch, then the signature constants.
   */
  public static JavaFile launcher(LibraryModel lib) {
    ClassName self = ClassName.get(lib.packageName(), lib.name());
    NameAllocator members = LauncherSkeleton.memberNames();
    Signatures signatures = new Signatures(members);
    List<OperatorNames> names = new ArrayList<>();
    for (Operator op : lib.operators()) {
      names.add(new OperatorNames(op, members));
    }
    LauncherSkeleton skeleton = new LauncherSkeleton(lib, self);
    TypeSpec.Builder t = skeleton.begin(names.isEmpty() ? null : names.get(0));
    List<MethodSpec> privates = new ArrayList<>();
    for (int i = 0; i < lib.operators().size(); i++) {
      Operator op = lib.operators().get(i);
      ShapeChecks checks = new ShapeChecks(op, names.get(i));
      t.addMethods(new OperatorMethods(lib, op, names.get(i), checks).methods());
      privates.add(checks.dimsMethod());
      privates.add(checks.checkOutputsMethod());
      privates.add(new Dispatch(lib, op, names.get(i), signatures).launchMethod());
    }
    t.addMethod(skeleton.closeMethod());
    t.addMethods(privates);
    t.addFields(signatures.fieldSpecs());
    return JavaFile.builder(lib.packageName(), t.build())
        .skipJavaLangImports(true)
        .indent("  ")
        .build();
  }
}
