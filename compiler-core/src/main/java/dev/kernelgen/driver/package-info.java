/**
 * The build of kernel libraries from spec classes, without Maven: {@link
 * dev.kernelgen.driver.KernelDriver} takes a {@link dev.kernelgen.driver.GenerateRequest} (loaded
 * spec classes, targets, output directory, native toolchain, knob configurations), writes the
 * kernels and a manifest per library, and returns a {@link dev.kernelgen.driver.LibraryModel} per
 * library from which the Maven plugin generates the launcher classes.
 *
 * <p>One class per concept, all but the public API package-private: {@code KernelDriver}
 * orchestrates (all libraries or none written); {@code SpecReader} finds the operators and
 * schedules of a spec class; {@code LibraryBuild} builds one library, each operator's variants
 * ({@code Variants}: specializations, 32-bit and 64-bit index kernels) for every target; {@code
 * ScheduleChoice} picks each variant's schedule (configured, tuning record per target and per ISA
 * level, or default); {@code Lower.lowerModule} lowers it; {@code OperatorModel} describes it for
 * the model; {@code ModuleEmitter} prints and compiles each target's module; {@code Manifest}
 * renders the manifest and the build's summary; {@code DriverFiles} writes files and digests.
 */
package dev.kernelgen.driver;
