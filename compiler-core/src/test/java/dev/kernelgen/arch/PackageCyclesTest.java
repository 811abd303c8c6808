package dev.kernelgen.arch;

import static com.tngtech.archunit.library.dependencies.SlicesRuleDefinition.slices;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import org.junit.jupiter.api.Test;

/**
 * Data flows one way between compiler-core's packages: no package depends, directly or through
 * others, on a package that depends on it (as TVM's {@code tir} sits below {@code te}).
 *
 * <p>A concept's sub-packages are parts of it ({@code tune.search}, {@code tune.model} and {@code
 * tune.features} are the tuner's search, learner and features, called by {@code tune.Tuner} and
 * built on its configuration space), so the slices are the top-level packages.
 */
class PackageCyclesTest {
  @Test
  void compilerCorePackagesAreFreeOfCycles() {
    JavaClasses main =
        new ClassFileImporter()
            .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
            .importPackages("dev.kernelgen");
    slices().matching("dev.kernelgen.(*)..").should().beFreeOfCycles().check(main);
  }
}
