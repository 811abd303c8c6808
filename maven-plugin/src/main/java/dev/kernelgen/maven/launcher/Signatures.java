package dev.kernelgen.maven.launcher;

import static dev.kernelgen.maven.launcher.RuntimeTypes.PARAM_KIND;
import static dev.kernelgen.maven.launcher.RuntimeTypes.SIGNATURE;

import com.palantir.javapoet.CodeBlock;
import com.palantir.javapoet.FieldSpec;
import com.palantir.javapoet.NameAllocator;
import dev.kernelgen.driver.LibraryModel.Param;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import javax.lang.model.element.Modifier;

/**
 * The launcher's {@code KernelSignature} constants: one static field per distinct parameter list of
 * the kernels, in the order the dispatch code first asks for them.
 */
final class Signatures {
  private final NameAllocator members;
  private final Map<String, String> fields = new LinkedHashMap<>();

  /** Signatures whose fields take names from {@code members}, the launcher's member names. */
  Signatures(NameAllocator members) {
    this.members = members;
  }

  /** The static field holding the signature of these parameters. */
  String field(List<Param> params) {
    String key =
        params.stream()
            .map(p -> p instanceof Param.Dim ? p.dtype().name() : "POINTER")
            .collect(Collectors.joining(","));
    return fields.computeIfAbsent(
        key, k -> members.newName("SIGNATURE_" + fields.size(), new Tag(k)));
  }

  /** The fields asked for so far. */
  List<FieldSpec> fieldSpecs() {
    return fields.entrySet().stream()
        .map(
            e ->
                FieldSpec.builder(
                        SIGNATURE, e.getValue(), Modifier.PRIVATE, Modifier.STATIC, Modifier.FINAL)
                    .initializer(initializer(e.getKey()))
                    .build())
        .toList();
  }

  private static CodeBlock initializer(String key) {
    return CodeBlock.of(
        "$T.of($L)",
        SIGNATURE,
        List.of(key.split(",")).stream()
            .map(k -> CodeBlock.of("$T.$L", PARAM_KIND, k))
            .collect(CodeBlock.joining(", ")));
  }

  /** A signature field's tag in the member names. */
  private record Tag(String key) {}
}
