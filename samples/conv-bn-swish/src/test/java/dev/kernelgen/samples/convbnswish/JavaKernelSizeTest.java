package dev.kernelgen.samples.convbnswish;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.InputStream;
import java.lang.classfile.ClassFile;
import java.lang.classfile.ClassModel;
import java.lang.classfile.MethodModel;
import java.lang.classfile.attribute.CodeAttribute;
import java.util.LinkedHashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The generated Java kernels of the specialized shapes are small enough for HotSpot's JIT: it
 * compiles no method over 8000 bytes of bytecode ({@code -XX:HugeMethodLimit}), and runs such a
 * method in the interpreter, a hundred times slower. The [8,32,28,28]x32 kernel's parallel body was
 * 63,915 bytes while the auto-scheduler unrolled register-tile rows in Java kernels. The generic
 * (symbolic-shape) kernels are not held to it: their loops are partitioned at symbolic padding
 * borders and still exceed it (26-42 KB).
 */
class JavaKernelSizeTest {
  static final int HUGE_METHOD_LIMIT = 8000;

  @Test
  void everyMethodOfASpecializedKernelIsCompiledByTheJit() throws IOException {
    Map<String, Integer> sizes = new LinkedHashMap<>();
    try (InputStream in =
        ConvBnSwishKernels.class.getResourceAsStream("ConvBnSwishKernelsJava.class")) {
      ClassModel cls = ClassFile.of().parse(in.readAllBytes());
      for (MethodModel m : cls.methods()) {
        String name = m.methodName().stringValue();
        m.findAttribute(java.lang.classfile.Attributes.code())
            .map(CodeAttribute::codeLength)
            .ifPresent(len -> sizes.put(name, len));
      }
    }
    assertThat(sizes.keySet()).anyMatch(n -> n.contains("convBnSwish_n8_c32_h28_w28_k32"));
    sizes.forEach(
        (name, len) -> {
          if (name.contains("_n1_") || name.contains("_n8_")) {
            assertThat(len).as("bytecode of %s", name).isLessThanOrEqualTo(HUGE_METHOD_LIMIT);
          }
        });
  }
}
