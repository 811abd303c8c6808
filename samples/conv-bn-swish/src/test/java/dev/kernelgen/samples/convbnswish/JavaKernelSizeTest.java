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
 * The generated Java kernels are small enough for HotSpot's JIT: it compiles no method over 8000
 * bytes of bytecode ({@code -XX:HugeMethodLimit}), and runs such a method in the interpreter, a
 * hundred times slower. The [8,32,28,28]x32 kernel's parallel body was 63,915 bytes while the
 * auto-scheduler unrolled register-tile rows in Java kernels; the generic (symbolic-shape) kernels
 * were 26,703 and 41,522 bytes while partitioning left empty tails of every padded row loop, each a
 * copy of the loop's body (at a shape the sample is not specialized to, [1,64,57,55]x64, a call
 * took 17.2 s; 112 ms since).
 */
class JavaKernelSizeTest {
  static final int HUGE_METHOD_LIMIT = 8000;

  @Test
  void everyMethodOfEveryKernelIsCompiledByTheJit() throws IOException {
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
    assertThat(sizes.keySet())
        .anyMatch(n -> n.contains("convBnSwish_n8_c32_h28_w28_k32"))
        .anyMatch(n -> n.equals("lambda$convBnSwish$0"))
        .anyMatch(n -> n.equals("lambda$convBnSwish_idx64$0"));
    sizes.forEach(
        (name, len) ->
            assertThat(len).as("bytecode of %s", name).isLessThanOrEqualTo(HUGE_METHOD_LIMIT));
  }
}
