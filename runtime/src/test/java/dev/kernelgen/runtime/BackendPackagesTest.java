package dev.kernelgen.runtime;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static com.tngtech.archunit.library.dependencies.SlicesRuleDefinition.slices;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import org.junit.jupiter.api.Test;

/**
 * The runtime's layout: one package per backend, which names no other backend; JCuda only in the
 * cuda package and JOCL only in the opencl package; and of the API, only {@link Devices} (the
 * facade that finds the backends) names a backend. So the GPU classes load only when a GPU is asked
 * for.
 */
class BackendPackagesTest {
  private static final String[] BACKENDS = {
    "dev.kernelgen.runtime.cuda..",
    "dev.kernelgen.runtime.opencl..",
    "dev.kernelgen.runtime.cpu..",
    "dev.kernelgen.runtime.java.."
  };

  private static final JavaClasses RUNTIME =
      new ClassFileImporter()
          .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
          .importPackages("dev.kernelgen.runtime");

  @Test
  void backendsNameNoOtherBackend() {
    slices()
        .matching("dev.kernelgen.runtime.(*)..")
        .that(
            com.tngtech.archunit.base.DescribedPredicate.describe(
                "backends",
                s -> java.util.Set.of("cuda", "opencl", "cpu", "java").contains(s.getNamePart(1))))
        .should()
        .notDependOnEachOther()
        .check(RUNTIME);
  }

  @Test
  void onlyTheCudaPackageUsesJCudaAndOnlyTheOpenClPackageUsesJocl() {
    noClasses()
        .that()
        .resideOutsideOfPackage("dev.kernelgen.runtime.cuda..")
        .should()
        .dependOnClassesThat()
        .resideInAPackage("jcuda..")
        .check(RUNTIME);
    noClasses()
        .that()
        .resideOutsideOfPackage("dev.kernelgen.runtime.opencl..")
        .should()
        .dependOnClassesThat()
        .resideInAPackage("org.jocl..")
        .check(RUNTIME);
  }

  @Test
  void ofTheApiOnlyDevicesNamesTheBackends() {
    noClasses()
        .that()
        .resideInAnyPackage(
            "dev.kernelgen.runtime",
            "dev.kernelgen.runtime.launch",
            "dev.kernelgen.runtime.backend")
        .and()
        .haveNameNotMatching("dev\\.kernelgen\\.runtime\\.Devices(\\$.*)?")
        .should()
        .dependOnClassesThat()
        .resideInAnyPackage(BACKENDS)
        .check(RUNTIME);
  }
}
