package dev.kernelgen.driver;

import dev.kernelgen.annotations.Target;
import dev.kernelgen.codegen.LaunchGeometry;
import dev.kernelgen.te.DType;
import dev.kernelgen.te.Expr;
import java.util.List;
import java.util.Map;

/**
 * What the driver built for one kernel library, as launcher generation needs it: the operators with
 * their arguments, and for each target and shape variant the kernels to launch in order, their
 * parameters and launch geometry, and where the compiled module lies among the resources.
 * Expressions (shapes, launch extents, temporary sizes) refer to symbolic dims by name.
 *
 * @param name the library's name: the launcher's simple class name
 * @param packageName the spec class's package: the launcher's package
 * @param specClass the spec class's binary name
 * @param targets the targets built, in the order of {@link Target}
 * @param resourceDir the library's resource directory, {@code META-INF/kernels/<name>}
 * @param modules the compiled module of each target
 * @param operators the operators in the order of their names
 * @param javaKernelClass simple name of the generated Java kernel class (null without JAVA)
 * @param javaKernelSource its source, to compile with the launcher (null without JAVA)
 */
public record LibraryModel(
    String name,
    String packageName,
    String specClass,
    List<Target> targets,
    String resourceDir,
    Map<Target, Module> modules,
    List<Operator> operators,
    String javaKernelClass,
    String javaKernelSource) {

  public LibraryModel {
    targets = List.copyOf(targets);
    modules = java.util.Collections.unmodifiableMap(new java.util.EnumMap<>(modules));
    operators = List.copyOf(operators);
  }

  /**
   * One target's module: resource names relative to {@link #resourceDir}.
   *
   * @param source the generated source (C, CUDA, OpenCL C; Java's is compiled with the launcher)
   * @param sourceDigest SHA-256 of the source
   * @param sharedLibraries C: the shared libraries for this platform, one per ISA level
   * @param fatbin CUDA: the fatbin, SASS per architecture and PTX of the newest; null elsewhere
   */
  public record Module(
      Target target,
      String source,
      String sourceDigest,
      List<SharedLibrary> sharedLibraries,
      Fatbin fatbin) {
    public Module {
      sharedLibraries = sharedLibraries == null ? List.of() : List.copyOf(sharedLibraries);
    }
  }

  /**
   * A CUDA module's fatbin.
   *
   * @param path the resource name, relative to {@link #resourceDir}
   * @param sha256 its SHA-256, which the launcher checks before loading it
   * @param architectures what it holds: {@code sm_90} for SASS, {@code compute_90} for PTX
   */
  public record Fatbin(String path, String sha256, List<String> architectures) {
    public Fatbin {
      architectures = List.copyOf(architectures);
    }
  }

  /**
   * A C module's shared library for one ISA level.
   *
   * @param isaLevel the {@code -march} it was compiled with ({@code x86-64-v3})
   * @param path the resource name, relative to {@link #resourceDir}
   * @param sha256 the library's SHA-256, which the launcher checks before loading it
   */
  public record SharedLibrary(String isaLevel, String path, String sha256) {}

  /**
   * An operator: the launcher method {@code name}.
   *
   * @param specMethod the {@code @Operator} method that declared it
   * @param expressions each computed tensor as {@code Name[i, j] = expression}, producers first
   * @param dims the symbolic dims, in order of first appearance in the arguments' shapes
   * @param variants the generic variant first, then the specializations in declaration order
   */
  public record Operator(
      String name,
      String specMethod,
      List<String> expressions,
      List<Argument> inputs,
      List<Argument> outputs,
      List<String> dims,
      List<Variant> variants,
      List<Requirement> requirements) {
    public Operator {
      expressions = List.copyOf(expressions);
      inputs = List.copyOf(inputs);
      outputs = List.copyOf(outputs);
      dims = List.copyOf(dims);
      variants = List.copyOf(variants);
      requirements = List.copyOf(requirements);
    }
  }

  /**
   * A condition on the symbolic dims that the launcher checks before a launch ({@link
   * ReadRequirements}: a read that would leave its tensor otherwise).
   *
   * @param holds a boolean expression over the dims
   * @param what the read and the bound it would pass, for the message
   */
  public record Requirement(Expr holds, String what) {}

  /** An input or output tensor: its name, dtype and shape over the symbolic dims. */
  public record Argument(String name, DType dtype, List<Expr> shape) {
    public Argument {
      shape = List.copyOf(shape);
    }
  }

  /**
   * The kernels of an operator for one assignment of dims: empty for the generic kernels, else the
   * specialized dims and their values, in the order of the operator's dims.
   *
   * @param builds each target's kernels; where dims stay symbolic, with 32-bit index arithmetic
   *     ({@code lower.IndexWidth.NARROW}), which the launcher runs while every tensor of the launch
   *     holds at most {@code IndexWidth.NARROW_ELEMENTS} elements
   * @param wideBuilds where dims stay symbolic: each target's kernels with 64-bit index arithmetic
   *     (functions named {@code <operator><suffix>_idx64}), run above that count; empty where every
   *     dim is fixed (constant extents choose their own index width)
   * @param intermediates where dims stay symbolic: the buffers of symbolic size that the C and Java
   *     kernels allocate themselves (a padded input, a cached stage), whose element counts the
   *     launcher checks beside the arguments' and the temporaries' before it runs 32-bit kernels
   */
  public record Variant(
      Map<String, Long> specialization,
      Map<Target, Build> builds,
      Map<Target, Build> wideBuilds,
      List<Temporary> intermediates) {
    public Variant {
      intermediates = List.copyOf(intermediates);
      specialization =
          java.util.Collections.unmodifiableMap(new java.util.LinkedHashMap<>(specialization));
      builds = java.util.Collections.unmodifiableMap(new java.util.EnumMap<>(builds));
      wideBuilds =
          wideBuilds.isEmpty()
              ? Map.of()
              : java.util.Collections.unmodifiableMap(new java.util.EnumMap<>(wideBuilds));
    }

    /** A variant of fixed shape: no 64-bit builds beside. */
    public Variant(Map<String, Long> specialization, Map<Target, Build> builds) {
      this(specialization, builds, Map.of(), List.of());
    }

    public boolean isGeneric() {
      return specialization.isEmpty();
    }
  }

  /**
   * How one variant was built for one target.
   *
   * @param schedule the {@code @ScheduleFor} method ({@code Class.method}) or {@code "default"}
   * @param configurationSource where the knob values came from: "default" or "configured"
   * @param knobs the value of each knob
   * @param space the choices of each knob
   * @param tunedByIsaLevel C: the tuning record's configuration of each ISA level whose library
   *     embeds a tuned schedule instead of this one (empty: every level builds this one)
   * @param trace the schedule's primitives, one per line
   * @param temporaries device memory the host allocates between kernels (GPU targets)
   * @param kernels the kernels to launch, in order
   */
  public record Build(
      String schedule,
      String configurationSource,
      Map<String, Integer> knobs,
      Map<String, List<Integer>> space,
      Map<String, Map<String, Integer>> tunedByIsaLevel,
      List<String> trace,
      List<Temporary> temporaries,
      List<Kernel> kernels) {
    public Build {
      knobs = java.util.Collections.unmodifiableMap(new java.util.LinkedHashMap<>(knobs));
      space = java.util.Collections.unmodifiableMap(new java.util.LinkedHashMap<>(space));
      tunedByIsaLevel =
          java.util.Collections.unmodifiableMap(new java.util.TreeMap<>(tunedByIsaLevel));
      trace = List.copyOf(trace);
      temporaries = List.copyOf(temporaries);
      kernels = List.copyOf(kernels);
    }
  }

  /** A buffer in device memory that the host allocates for the kernels of one launch. */
  public record Temporary(String name, DType dtype, Expr size) {}

  /**
   * One kernel: its symbol in the module, its parameters, and for GPU targets its launch geometry
   * (null for C and Java, which loop over the whole domain in one call).
   */
  public record Kernel(String name, List<Param> params, LaunchGeometry geometry) {
    public Kernel {
      params = List.copyOf(params);
    }
  }

  /** A kernel parameter: a buffer (an argument or a temporary) or a symbolic dim. */
  public sealed interface Param {
    String name();

    DType dtype();

    /** A buffer parameter, named as the argument or temporary it receives. */
    record Buffer(String name, DType dtype) implements Param {}

    /** A symbolic dim, passed by value. */
    record Dim(String name, DType dtype) implements Param {}
  }
}
