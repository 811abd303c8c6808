package dev.kernelgen.maven;

import static com.tngtech.archunit.core.domain.JavaClass.Predicates.resideInAPackage;
import static com.tngtech.archunit.core.domain.JavaClass.Predicates.resideOutsideOfPackages;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import org.junit.jupiter.api.Test;

/**
 * The plugin uses compiler-core only through its public packages: what a build and the tuner are
 * driven with ({@code driver}, {@code tune}, {@code spec}), the errors it reports ({@code diag}),
 * the expressions of a library model's shapes that launchers check ({@code te}) and the tool finder
 * ({@code codegen.NativeToolchain}'s package), and the measure module, which compiles and times
 * tuning candidates. Lowering, the loop IR, the simplifier and the interpreters stay behind the
 * driver and the measurers (no exception since DeviceMeasurer moved to {@code measure}).
 */
class CompilerCoreApiTest {
  /** Compiler-core packages the plugin may use, with the plugin's own and the runtime's. */
  static final String[] PUBLIC = {
    "dev.kernelgen.maven..",
    "dev.kernelgen.runtime..",
    "dev.kernelgen.measure..",
    "dev.kernelgen.annotations..",
    "dev.kernelgen.driver..",
    "dev.kernelgen.tune..",
    "dev.kernelgen.spec..",
    "dev.kernelgen.diag..",
    "dev.kernelgen.te..",
    "dev.kernelgen.codegen..",
  };

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
        .should()
        .dependOnClassesThat(
            resideInAPackage("dev.kernelgen..").and(resideOutsideOfPackages(PUBLIC)))
        .because("compiler-core's internals are reached through driver, tune and spec")
        .check(plugin());
  }
}
