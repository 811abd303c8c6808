/**
 * The {@code generate} goal without Maven: {@link dev.kernelgen.maven.generate.Generator} takes
 * {@link dev.kernelgen.maven.generate.GenerateSettings}, compiles the spec sources in memory
 * ({@link dev.kernelgen.maven.generate.InMemoryCompiler}), runs the driver and writes the
 * launchers, or does nothing when the digest of its inputs is that of the last build.
 */
package dev.kernelgen.maven.generate;
