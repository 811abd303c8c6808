package dev.kernelgen.driver;

import static org.assertj.core.api.Assertions.assertThat;

import dev.kernelgen.annotations.Target;
import dev.kernelgen.schedule.Schedule;
import dev.kernelgen.spec.Knobs;
import dev.kernelgen.spec.OperatorDef;
import dev.kernelgen.testing.JavaSourceCompiler;
import java.lang.reflect.Method;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The README's spec example, taken from the README between its {@code spec-example} markers,
 * compiles against compiler-core as written (short annotation names beside the DSL's {@code
 * Schedule}), and the spec reader accepts it.
 */
class ReadmeSpecExampleTest {
  private static final String START = "<!-- spec-example:";
  private static final String END = "<!-- end spec-example -->";

  @Test
  void readmeSpecExampleCompilesAndReads() throws Exception {
    String source = example(Files.readString(readme()));
    assertThat(source).contains("@ScheduleFor(").contains("public static Schedule cpu(");

    Class<?> spec = JavaSourceCompiler.compile("DepthwiseSpec", source);
    SpecReader.LibrarySpec lib = SpecReader.read(new GenerateRequest.SpecSource(spec, null));
    assertThat(lib.name()).isEqualTo("DepthwiseKernels");
    assertThat(lib.operators()).hasSize(1);
    SpecReader.OperatorSpec op = lib.operators().get(0);
    assertThat(op.name()).isEqualTo("depthwiseScaleShiftRelu");
    assertThat(op.specializations()).containsExactly("c=256,h=96,w=96");
    Map<Target, Method> schedules = op.schedules();
    assertThat(schedules).containsOnlyKeys(Target.C, Target.JAVA);

    OperatorDef def = (OperatorDef) op.method().invoke(null);
    Knobs knobs = Knobs.defaults();
    Object s = schedules.get(Target.C).invoke(null, def, knobs);
    assertThat(s).isInstanceOf(Schedule.class);
    assertThat(knobs.chosen()).containsEntry("vector", 0);
  }

  /** The fenced Java block after the start marker, its list-item indentation removed. */
  static String example(String readme) {
    int start = readme.indexOf(START);
    int end = readme.indexOf(END);
    assertThat(start).as("README marker '%s'", START).isNotNegative();
    assertThat(end).as("README marker '%s'", END).isGreaterThan(start);
    String block = readme.substring(start, end);
    int open = block.indexOf("```java\n");
    int close = block.lastIndexOf("```");
    assertThat(open).as("a ```java fence after the marker").isNotNegative();
    String code = block.substring(open + "```java\n".length(), close);
    return code.stripIndent();
  }

  private static Path readme() {
    // Surefire runs in the module folder; the README is the repository's.
    Path p = Path.of("..", "README.md");
    assertThat(p).as("the repository README beside compiler-core").exists();
    return p;
  }
}
