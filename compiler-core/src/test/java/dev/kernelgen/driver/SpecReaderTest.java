package dev.kernelgen.driver;

import static dev.kernelgen.te.TE.FLOAT32;
import static dev.kernelgen.te.TE.compute;
import static dev.kernelgen.te.TE.placeholder;
import static dev.kernelgen.te.TE.shape;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.kernelgen.annotations.KernelLibrary;
import dev.kernelgen.annotations.Operator;
import dev.kernelgen.annotations.Target;
import dev.kernelgen.diag.UserError;
import dev.kernelgen.spec.OperatorDef;
import dev.kernelgen.te.Tensor;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The spec class's annotations and signatures, read into a library spec. */
class SpecReaderTest {
  @KernelLibrary(
      name = "TwinKernels",
      targets = {Target.JAVA})
  public static final class Twins {
    static OperatorDef twice() {
      Tensor x = placeholder("x", FLOAT32, 4);
      return OperatorDef.of(List.of(x), compute("Y", shape(4), i -> x.at(i).mul(2f)));
    }

    @Operator(name = "twin")
    public static OperatorDef twinA() {
      return twice();
    }

    @Operator(name = "twin")
    public static OperatorDef twinB() {
      return twice();
    }
  }

  @Test
  void anOperatorNameDeclaredTwiceNamesBothMethods() {
    // Methods come in no fixed order: the message names the one met second and the first.
    assertThatThrownBy(() -> SpecReader.read(new GenerateRequest.SpecSource(Twins.class, null)))
        .isInstanceOf(UserError.class)
        .hasMessageContaining("operator 'twin' is declared twice, here and by twin")
        .hasMessageMatching(
            "(?s).*twin[AB]\\(\\): operator 'twin' is declared twice, here and by twin[AB]\\(\\)");
  }

  @KernelLibrary(
      name = "CpuKernels",
      targets = {Target.C, Target.JAVA})
  public static final class CudaScheduleOnCpuLibrary {
    @Operator
    public static OperatorDef twice() {
      return Twins.twice();
    }

    @dev.kernelgen.annotations.ScheduleFor(
        operator = "twice",
        targets = {Target.CUDA})
    public static dev.kernelgen.schedule.Schedule gpu(
        OperatorDef op, dev.kernelgen.spec.Knobs knobs) {
      return dev.kernelgen.schedule.Schedule.create(op.outputs());
    }
  }

  @Test
  void aScheduleForATargetTheLibraryDoesNotBuildIsAMistake() {
    // It was ignored without a word: the user's CUDA schedule never ran.
    assertThatThrownBy(
            () ->
                SpecReader.read(
                    new GenerateRequest.SpecSource(CudaScheduleOnCpuLibrary.class, null)))
        .isInstanceOf(UserError.class)
        .hasMessageEndingWith(
            "gpu(): schedules operator 'twice' for CUDA, which library 'CpuKernels' does not build"
                + " (targets: [C, JAVA]); add CUDA to @KernelLibrary's targets or drop it from"
                + " this @ScheduleFor");
  }

  @KernelLibrary(
      name = "SlowKernels",
      targets = {Target.JAVA})
  public static final class EndlessDefinition {
    static volatile boolean release;

    @Operator
    public static OperatorDef spin() {
      long n = 0;
      while (!release) { // a bound the user got wrong
        n++;
      }
      Tensor x = placeholder("x", FLOAT32, 4 + (int) (n & 0));
      return OperatorDef.of(List.of(x), compute("Y", shape(4), i -> x.at(i).mul(2f)));
    }
  }

  @Test
  void aSpecMethodThatNeverReturnsIsAnErrorNamingItWithinItsTimeLimit() throws Exception {
    // The build hung without a word.
    String before = System.getProperty(SpecReader.TIMEOUT_PROPERTY);
    System.setProperty(SpecReader.TIMEOUT_PROPERTY, "1");
    try {
      long t0 = System.nanoTime();
      assertThatThrownBy(
              () ->
                  SpecReader.call(
                      new GenerateRequest.SpecSource(EndlessDefinition.class, null),
                      EndlessDefinition.class.getMethod("spin")))
          .isInstanceOf(UserError.class)
          .hasMessageContaining("spin()")
          .hasMessageContaining("did not return within 1 s")
          .hasMessageContaining("-Dkernelgen.specTimeoutSeconds=SECONDS");
      org.assertj.core.api.Assertions.assertThat(System.nanoTime() - t0)
          .isLessThan(10_000_000_000L);
    } finally {
      EndlessDefinition.release = true; // the spinning thread ends
      if (before == null) {
        System.clearProperty(SpecReader.TIMEOUT_PROPERTY);
      } else {
        System.setProperty(SpecReader.TIMEOUT_PROPERTY, before);
      }
    }
  }

  @Test
  void aSpecMethodsOwnErrorKeepsItsLine() {
    assertThatThrownBy(
            () ->
                SpecReader.call(
                    new GenerateRequest.SpecSource(Throws.class, null),
                    Throws.class.getMethod("broken")))
        .isInstanceOf(UserError.class)
        .hasMessageContaining("broken() threw java.lang.IllegalStateException: no shape yet")
        .hasMessageContaining("(at SpecReaderTest.java:");
  }

  public static final class Throws {
    public static OperatorDef broken() {
      throw new IllegalStateException("no shape yet");
    }
  }

  @KernelLibrary(
      name = "CarelessKernels",
      targets = {Target.JAVA})
  public static final class Careless {
    @Operator
    public OperatorDef notStatic() {
      return null;
    }

    @Operator
    public static OperatorDef withParameter(int n) {
      return null;
    }

    @Operator
    public static OperatorDef fine() {
      Tensor x = placeholder("x", FLOAT32, 4);
      return OperatorDef.of(List.of(x), compute("Y", shape(4), i -> x.at(i).mul(2f)));
    }

    @dev.kernelgen.annotations.ScheduleFor(
        operator = "fine",
        targets = {Target.JAVA})
    public static void wrongSignature(dev.kernelgen.schedule.Schedule s) {}

    @dev.kernelgen.annotations.ScheduleFor(
        operator = "notStatic",
        targets = {Target.JAVA})
    public static void ofABrokenOperator(
        dev.kernelgen.schedule.Schedule s, OperatorDef op, dev.kernelgen.spec.Knobs k) {}
  }

  @Test
  void everyMistakeOfASpecClassIsReportedAtOnce() {
    // A build stopped at the first: a user with three went through three builds.
    assertThatThrownBy(() -> SpecReader.read(new GenerateRequest.SpecSource(Careless.class, null)))
        .isInstanceOf(UserError.class)
        .hasMessageStartingWith("3 mistakes in ")
        .hasMessageContaining("notStatic(): an @Operator must be static")
        .hasMessageContaining("withParameter(): an @Operator method takes no parameters")
        .hasMessageContaining("wrongSignature(): a @ScheduleFor method must be either")
        // (a schedule of an operator already reported is not reported again as undeclared)
        .hasMessageNotContaining("ofABrokenOperator");
  }
}
