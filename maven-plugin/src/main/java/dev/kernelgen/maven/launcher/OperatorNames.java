package dev.kernelgen.maven.launcher;

import com.palantir.javapoet.NameAllocator;
import dev.kernelgen.driver.LibraryModel.Argument;
import dev.kernelgen.driver.LibraryModel.Build;
import dev.kernelgen.driver.LibraryModel.Operator;
import dev.kernelgen.driver.LibraryModel.Variant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import javax.lang.model.SourceVersion;

/**
 * The identifiers of one operator's generated members: its parameters, the dims' locals and the
 * other locals, all from one {@link NameAllocator}, so that no two clash in any of the operator's
 * methods. The launcher's fields that these methods name unqualified come first, then in this order
 * {@code dims_}, {@code args_}, the inputs, the outputs, the dims, the dtypes' parameters and the
 * dispatch's locals. A parameter that would clash takes a number ({@code x2}); a dim or a local
 * that would clash, or is a keyword, takes an underscore ({@code int_}), as dims always have.
 */
final class OperatorNames {
  /** The launcher's fields that operator methods name without {@code this}. */
  static final List<String> UNQUALIFIED_FIELDS =
      List.of(LauncherSkeleton.DEVICE_FIELD, LauncherSkeleton.MODULE_FIELD, "LIBRARY", "TARGETS");

  private final NameAllocator names = new NameAllocator();

  /** The dims array, a parameter or a local of every method but the public ones. */
  final String dims;

  /** The launch's kernel arguments (input and output buffers, in order). */
  final String args;

  /** Per dim, its {@code long} local. */
  final Map<String, String> dimLocals = new LinkedHashMap<>();

  final List<String> inputs = new ArrayList<>();
  final List<String> outputs = new ArrayList<>();

  /** Per input, then per output: the parameter of its dtype in the checks. */
  final List<String> inputTypes = new ArrayList<>();

  final List<String> outputTypes = new ArrayList<>();

  /** The dispatch's locals: the lifecycle's use, the workspace's lease, a launch's config. */
  final String use;

  final String lease;
  final String config;

  /** Per temporary of a build, by its index: its buffer's local. */
  final List<String> temporaries = new ArrayList<>();

  /** The operator's private methods, named by the launcher's member names. */
  final String dimsMethod;

  final String checkOutputsMethod;
  final String launchMethod;

  OperatorNames(Operator op, NameAllocator members) {
    for (String f : UNQUALIFIED_FIELDS) {
      names.newName(f, new Tag("field", f));
    }
    dims = names.newName("dims_", new Tag("dims", ""));
    args = names.newName("args_", new Tag("args", ""));
    // The parameters before the dims' locals: a dim named as an input leaves the input its name
    // (the user's, in the launcher's signature) and takes an underscore itself.
    for (Argument a : op.inputs()) {
      inputs.add(parameter(javaName(a.name()), new Tag("input", a.name())));
    }
    for (Argument a : op.outputs()) {
      String name = op.outputs().size() > 1 ? javaName(a.name()) + "Out" : outName();
      outputs.add(parameter(name, new Tag("output", a.name())));
    }
    for (String d : op.dims()) {
      dimLocals.put(d, names.newName(d, new Tag("dim", d)));
    }
    for (String n : inputs) {
      inputTypes.add(names.newName(n + "Type", new Tag("inputType", n)));
    }
    for (String n : outputs) {
      outputTypes.add(names.newName(n + "Type", new Tag("outputType", n)));
    }
    use = names.newName("use_", new Tag("use", ""));
    lease = names.newName("lease_", new Tag("lease", ""));
    config = names.newName("config", new Tag("config", ""));
    int temps = 0;
    for (Variant v : op.variants()) {
      for (Build b : v.builds().values()) {
        temps = Math.max(temps, b.temporaries().size());
      }
      for (Build b : v.wideBuilds().values()) {
        temps = Math.max(temps, b.temporaries().size());
      }
    }
    for (int k = 0; k < temps; k++) {
      temporaries.add(names.newName("temp" + k + "_", new Tag("temporary", "" + k)));
    }
    dimsMethod = members.newName(op.name() + "Dims", new Tag("dimsMethod", op.name()));
    checkOutputsMethod =
        members.newName(op.name() + "CheckOutputs", new Tag("checkOutputsMethod", op.name()));
    launchMethod = members.newName(op.name() + "Launch", new Tag("launchMethod", op.name()));
  }

  /** The inputs' then the outputs' parameters. */
  List<String> arguments() {
    List<String> all = new ArrayList<>(inputs);
    all.addAll(outputs);
    return all;
  }

  /**
   * An operator's only output is {@code out}, whatever its last stage is called, so that a stage
   * named like an input ({@code Bias} beside {@code bias}) does not turn the output into {@code
   * bias2}; {@code output} where an input is already called {@code out}. One of several outputs is
   * {@code <tensor>Out}.
   */
  private String outName() {
    return free("out") ? "out" : "output";
  }

  /** {@code name}, or the first of {@code name2}, {@code name3}, ... that is free. */
  private String parameter(String name, Tag tag) {
    String base = NameAllocator.toJavaIdentifier(name);
    String n = base;
    for (int k = 2; !free(n); k++) {
      n = base + k;
    }
    return names.newName(n, tag);
  }

  private boolean free(String name) {
    return names.clone().newName(name).equals(name);
  }

  /** A tensor name as a Java parameter name: lower camel case, not a keyword. */
  static String javaName(String tensor) {
    String[] parts = tensor.split("[_.]+");
    StringBuilder sb = new StringBuilder();
    for (String p : parts) {
      if (p.isEmpty()) {
        continue;
      }
      if (sb.isEmpty()) {
        sb.append(Character.toLowerCase(p.charAt(0))).append(p.substring(1));
      } else {
        sb.append(Character.toUpperCase(p.charAt(0))).append(p.substring(1));
      }
    }
    String n = sb.isEmpty() ? "arg" : sb.toString();
    if (!Character.isJavaIdentifierStart(n.charAt(0))) {
      n = "t" + n;
    }
    return SourceVersion.isKeyword(n) ? n + "_" : n;
  }

  /** What a name is allocated for: its kind and the tensor, dim or index it stands for. */
  private record Tag(String kind, String of) {}
}
