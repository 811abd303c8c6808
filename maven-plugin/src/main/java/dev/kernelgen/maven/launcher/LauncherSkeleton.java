package dev.kernelgen.maven.launcher;

import static dev.kernelgen.maven.launcher.RuntimeTypes.DEVICE;
import static dev.kernelgen.maven.launcher.RuntimeTypes.KERNEL_MODULE;
import static dev.kernelgen.maven.launcher.RuntimeTypes.LAUNCHERS;
import static dev.kernelgen.maven.launcher.RuntimeTypes.LIFECYCLE;
import static dev.kernelgen.maven.launcher.RuntimeTypes.TARGET;
import static dev.kernelgen.maven.launcher.RuntimeTypes.WORKSPACE;

import com.palantir.javapoet.ClassName;
import com.palantir.javapoet.CodeBlock;
import com.palantir.javapoet.FieldSpec;
import com.palantir.javapoet.MethodSpec;
import com.palantir.javapoet.NameAllocator;
import com.palantir.javapoet.ParameterizedTypeName;
import com.palantir.javapoet.TypeSpec;
import dev.kernelgen.driver.LibraryModel;
import dev.kernelgen.driver.LibraryModel.Build;
import dev.kernelgen.driver.LibraryModel.Operator;
import dev.kernelgen.driver.LibraryModel.Variant;
import java.util.List;
import javax.lang.model.element.Modifier;

/**
 * The launcher class without its operators: the constants ({@code LIBRARY}, {@code TARGETS}, {@code
 * RESOURCES}), the state (device, module, lifecycle and, where kernels need temporaries, the
 * workspace), the constructor, {@code load()}, {@code device()}, {@code close()} and the class's
 * javadoc with an example call of the first operator.
 */
final class LauncherSkeleton {
  static final String DEVICE_FIELD = "device";
  static final String MODULE_FIELD = "module";

  /** The fields, in the order they are declared; the first names in the member names. */
  private static final List<String> FIELDS =
      List.of(
          "LIBRARY", "TARGETS", "RESOURCES", DEVICE_FIELD, MODULE_FIELD, "lifecycle", "workspace");

  private final LibraryModel lib;
  private final ClassName self;
  private final boolean temporaries;

  LauncherSkeleton(LibraryModel lib, ClassName self) {
    this.lib = lib;
    this.self = self;
    this.temporaries = hasTemporaries(lib);
  }

  /** Member names with the fields taken. */
  static NameAllocator memberNames() {
    NameAllocator members = new NameAllocator();
    for (String f : FIELDS) {
      members.newName(f, f);
    }
    return members;
  }

  /** The class with its fields, constructor, {@code load} and {@code device} methods. */
  TypeSpec.Builder begin(OperatorNames first) {
    TypeSpec.Builder t =
        TypeSpec.classBuilder(self)
            .addModifiers(Modifier.PUBLIC, Modifier.FINAL)
            .addSuperinterface(AutoCloseable.class)
            .addJavadoc(classDoc(first));
    t.addField(
        FieldSpec.builder(String.class, "LIBRARY", Modifier.PUBLIC, Modifier.STATIC, Modifier.FINAL)
            .addJavadoc("The library's name.\n")
            .initializer("$S", lib.name())
            .build());
    t.addField(
        FieldSpec.builder(
                ParameterizedTypeName.get(ClassName.get(List.class), TARGET),
                "TARGETS",
                Modifier.PUBLIC,
                Modifier.STATIC,
                Modifier.FINAL)
            .addJavadoc("The targets the library has kernels for.\n")
            .initializer(
                "$T.of($L)",
                List.class,
                lib.targets().stream()
                    .map(x -> CodeBlock.of("$T.$L", TARGET, x.name()))
                    .collect(CodeBlock.joining(", ")))
            .build());
    t.addField(
        FieldSpec.builder(
                String.class, "RESOURCES", Modifier.PRIVATE, Modifier.STATIC, Modifier.FINAL)
            .initializer("$S", lib.resourceDir() + "/")
            .build());
    t.addField(DEVICE, DEVICE_FIELD, Modifier.PRIVATE, Modifier.FINAL);
    t.addField(KERNEL_MODULE, MODULE_FIELD, Modifier.PRIVATE, Modifier.FINAL);
    // Open or closed: calls after close() throw IllegalStateException, close() waits for calls.
    t.addField(LIFECYCLE, "lifecycle", Modifier.PRIVATE, Modifier.FINAL);
    if (temporaries) {
      t.addField(WORKSPACE, "workspace", Modifier.PRIVATE, Modifier.FINAL);
    }
    MethodSpec.Builder ctor =
        MethodSpec.constructorBuilder()
            .addModifiers(Modifier.PRIVATE)
            .addParameter(DEVICE, "device")
            .addParameter(KERNEL_MODULE, "module")
            .addStatement("this.device = device")
            .addStatement("this.module = module")
            .addStatement("this.lifecycle = $T.lifecycle(LIBRARY, device)", LAUNCHERS);
    if (temporaries) {
      ctor.addStatement("this.workspace = new $T(device)", WORKSPACE);
    }
    t.addMethod(ctor.build());
    t.addMethod(new ModuleLoading(lib, self).loadMethod());
    t.addMethod(
        MethodSpec.methodBuilder("load")
            .addModifiers(Modifier.PUBLIC, Modifier.STATIC)
            .returns(self)
            .addJavadoc(
                "Loads the kernels on the best available device among {@link #TARGETS}: CUDA, then"
                    + " OpenCL,\nthen C, then Java; the system property {@code kernelgen.target}"
                    + " (or the environment\nvariable {@code KERNELGEN_TARGET}) names another."
                    + " Where the C libraries cannot\nload on this machine, the Java kernels run"
                    + " (the reason is logged once).\n")
            .addStatement("return $T.load(LIBRARY, TARGETS, $T::load)", LAUNCHERS, self)
            .build());
    t.addMethod(
        MethodSpec.methodBuilder("device")
            .addModifiers(Modifier.PUBLIC)
            .returns(DEVICE)
            .addJavadoc("The device the kernels run on.\n")
            .addStatement("return device")
            .build());
    return t;
  }

  /** {@code close()}: ends the lifecycle, then frees the workspace and unloads the module. */
  MethodSpec closeMethod() {
    MethodSpec.Builder close =
        MethodSpec.methodBuilder("close")
            .addAnnotation(Override.class)
            .addModifiers(Modifier.PUBLIC)
            .addJavadoc(
                "Unloads the kernels once the calls in flight are done; later calls throw\n"
                    + "{@link IllegalStateException}. The device stays usable.\n")
            .beginControlFlow("if (this.lifecycle.close())");
    if (temporaries) {
      close
          .beginControlFlow("try")
          .addStatement("this.workspace.close()")
          .nextControlFlow("finally")
          .addStatement("module.close()")
          .endControlFlow();
    } else {
      close.addStatement("module.close()");
    }
    return close.endControlFlow().build();
  }

  private static boolean hasTemporaries(LibraryModel lib) {
    for (Operator op : lib.operators()) {
      for (Variant v : op.variants()) {
        for (Build b : v.builds().values()) {
          if (!b.temporaries().isEmpty()) {
            return true;
          }
        }
      }
    }
    return false;
  }

  /** The class's javadoc; {@code first}: the names of the first operator, or null. */
  private CodeBlock classDoc(OperatorNames first) {
    CodeBlock.Builder d = CodeBlock.builder();
    d.add(
        "Kernels of library {@code $L}, generated by kernelgen from {@code $L}: do not edit.\n",
        lib.name(),
        lib.specClass().replace('$', '.'));
    d.add("\n<p>Targets: $L. ", lib.targets());
    d.add("Operators: $L.\n", lib.operators().stream().map(Operator::name).toList());
    d.add("\n<pre>{@code\n");
    d.add("try ($L k = $L.load()) {\n", lib.name(), lib.name());
    if (first != null) {
      d.add("  k.$L($L);\n", lib.operators().get(0).name(), String.join(", ", first.arguments()));
    }
    d.add("}\n}</pre>\n");
    return d.build();
  }
}
