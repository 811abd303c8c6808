package dev.kernelgen.maven;

import static com.tngtech.archunit.core.domain.JavaClass.Predicates.resideInAPackage;
import static com.tngtech.archunit.core.domain.JavaClass.Predicates.resideOutsideOfPackages;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static org.assertj.core.api.Assertions.assertThat;

import com.tngtech.archunit.base.DescribedPredicate;
import com.tngtech.archunit.core.domain.JavaClass;
import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import org.junit.jupiter.api.Test;

/**
 * The plugin uses compiler-core only through its public packages: what a build and the tuner are
 * driven with ({@code driver}, {@code tune}, {@code spec}), the errors it reports ({@code diag}),
 * the expressions of a library model's shapes that launchers check ({@code te}) and the tool finder
 * ({@code codegen.NativeToolchain}'s package). Lowering, the loop IR, the simplifier and the
 * interpreters stay behind the driver.
 */
class CompilerCoreApiTest {
  /** Compiler-core packages the plugin may use, with the plugin's own and the runtime's. */
  static final String[] PUBLIC = {
    "dev.kernelgen.maven..",
    "dev.kernelgen.runtime..",
    "dev.kernelgen.annotations..",
    "dev.kernelgen.driver..",
    "dev.kernelgen.tune..",
    "dev.kernelgen.spec..",
    "dev.kernelgen.diag..",
    "dev.kernelgen.te..",
    "dev.kernelgen.codegen..",
  };

  /**
   * The one class allowed past the public packages today: the GPU tuner's measurer compiles and
   * times candidates itself (lower, tir, eval, schedule, arith), which the compile-and-measure
   * module is to take over (issue 11); delete this exception when it moves.
   */
  static final String EXCEPTION = "dev.kernelgen.maven.tune.DeviceMeasurer";

  private static final DescribedPredicate<JavaClass> NOT_THE_EXCEPTION =
      DescribedPredicate.describe(
          "are not " + EXCEPTION,
          c -> !c.getName().equals(EXCEPTION) && !c.getName().startsWith(EXCEPTION + "$"));

  private static JavaClasses plugin() {
    return new ClassFileImporter()
        .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
        .importPackages("dev.kernelgen.maven");
  }

  @Test
  void pluginUsesOnlyPublicCompilerCorePackages() {
    noClasses()
        .that()
        .resideInAPackage("dev.kernelgen.maven..")
        .and(NOT_THE_EXCEPTION)
        .should()
        .dependOnClassesThat(
            resideInAPackage("dev.kernelgen..").and(resideOutsideOfPackages(PUBLIC)))
        .because("compiler-core's internals are reached through driver, tune and spec")
        .check(plugin());
  }

  /** The exception is deleted with the class it excuses, not left behind to excuse another. */
  @Test
  void theExceptionStillExists() {
    assertThat(plugin().contain(EXCEPTION))
        .as("%s is gone: remove it from CompilerCoreApiTest.EXCEPTION", EXCEPTION)
        .isTrue();
  }
}
