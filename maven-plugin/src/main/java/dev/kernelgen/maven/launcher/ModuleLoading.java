package dev.kernelgen.maven.launcher;

import static dev.kernelgen.maven.launcher.RuntimeTypes.DEVICE;
import static dev.kernelgen.maven.launcher.RuntimeTypes.DEVICE_EXCEPTION;
import static dev.kernelgen.maven.launcher.RuntimeTypes.JAVA_BINARY;
import static dev.kernelgen.maven.launcher.RuntimeTypes.KERNEL_BINARY;
import static dev.kernelgen.maven.launcher.RuntimeTypes.LAUNCHERS;

import com.palantir.javapoet.ClassName;
import com.palantir.javapoet.CodeBlock;
import com.palantir.javapoet.MethodSpec;
import dev.kernelgen.annotations.Target;
import dev.kernelgen.driver.LibraryModel;
import java.util.Objects;
import javax.lang.model.element.Modifier;

/**
 * The launcher's {@code load(Device)}: per target of the library, how its kernels come from the
 * class path (the C libraries per ISA level, the OpenCL source, the CUDA fatbin with its hash and
 * architectures, the Java kernels' class), all through {@code Launchers}, which owns the backends.
 */
final class ModuleLoading {
  private final LibraryModel lib;
  private final ClassName self;

  ModuleLoading(LibraryModel lib, ClassName self) {
    this.lib = lib;
    this.self = self;
  }

  MethodSpec loadMethod() {
    CodeBlock.Builder sw = CodeBlock.builder().add("$T binary =\n", KERNEL_BINARY).indent();
    sw.add("switch (device.target()) {\n").indent();
    for (Target target : lib.targets()) {
      sw.add(binary(target, lib.modules().get(target)));
    }
    if (lib.targets().size() < Target.values().length) {
      sw.add("default -> throw $T.noKernels(LIBRARY, device, TARGETS);\n", LAUNCHERS);
    }
    sw.unindent().add("};\n").unindent();
    return MethodSpec.methodBuilder("load")
        .addModifiers(Modifier.PUBLIC, Modifier.STATIC)
        .returns(self)
        .addParameter(DEVICE, "device")
        .addJavadoc(
            "Loads the kernels for {@code device} from the class path.\n\n"
                + "@throws $T when the library has no kernels for the device's target, or the"
                + " device rejects them\n",
            DEVICE_EXCEPTION)
        .addStatement("$T.requireNonNull(device, $S)", Objects.class, "device")
        .addCode(sw.build())
        .addStatement("return new $T(device, device.loadModule(binary))", self)
        .build();
  }

  /** The switch case that makes the kernel binary of {@code target}. */
  private CodeBlock binary(Target target, LibraryModel.Module m) {
    return switch (target) {
      case C ->
          CodeBlock.of(
              "case C -> $T.c(LIBRARY, $T.class$L);\n",
              LAUNCHERS,
              self,
              m.sharedLibraries().stream()
                  .map(
                      l ->
                          CodeBlock.of(
                              ",\n    $S, RESOURCES + $S, $S", l.isaLevel(), l.path(), l.sha256()))
                  .collect(CodeBlock.joining("")));
      case OPENCL ->
          CodeBlock.of(
              "case OPENCL -> $T.openCl(LIBRARY, $T.class, RESOURCES + $S);\n",
              LAUNCHERS,
              self,
              m.source());
      case CUDA ->
          CodeBlock.of(
              "case CUDA -> $T.cudaFatbin(LIBRARY, $T.class, RESOURCES + $S, $S$L);\n",
              LAUNCHERS,
              self,
              m.fatbin().path(),
              m.fatbin().sha256(),
              m.fatbin().architectures().stream()
                  .map(a -> CodeBlock.of(", $S", a))
                  .collect(CodeBlock.joining("")));
      case JAVA ->
          CodeBlock.of(
              "case JAVA -> new $T(LIBRARY, $T.class);\n",
              JAVA_BINARY,
              ClassName.get(lib.packageName(), lib.javaKernelClass()));
    };
  }
}
