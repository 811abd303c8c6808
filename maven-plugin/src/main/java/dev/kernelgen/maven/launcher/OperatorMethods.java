package dev.kernelgen.maven.launcher;

import static dev.kernelgen.maven.launcher.RuntimeTypes.CHECKS;
import static dev.kernelgen.maven.launcher.RuntimeTypes.DATA_TYPE;
import static dev.kernelgen.maven.launcher.RuntimeTypes.DEVICE_TENSOR;
import static dev.kernelgen.maven.launcher.RuntimeTypes.HOST_TENSOR;
import static dev.kernelgen.maven.launcher.RuntimeTypes.LAUNCHERS;

import com.palantir.javapoet.ClassName;
import com.palantir.javapoet.CodeBlock;
import com.palantir.javapoet.MethodSpec;
import dev.kernelgen.driver.LibraryModel;
import dev.kernelgen.driver.LibraryModel.Argument;
import dev.kernelgen.driver.LibraryModel.Operator;
import dev.kernelgen.driver.LibraryModel.Variant;
import dev.kernelgen.te.Expr;
import dev.kernelgen.te.ExprPrinter;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.stream.Collectors;
import javax.lang.model.element.Modifier;

/**
 * An operator's public methods and their javadoc: the call on host tensors (copied to the device
 * and back), the call on device tensors, and per output the {@code allocate...} helpers of both
 * kinds. Each checks that the launcher is open, the shapes ({@link ShapeChecks}) and that no output
 * aliases another argument, then launches ({@link Dispatch}).
 */
final class OperatorMethods {
  private final LibraryModel lib;
  private final Operator op;
  private final OperatorNames names;
  private final ShapeChecks checks;

  OperatorMethods(LibraryModel lib, Operator op, OperatorNames names, ShapeChecks checks) {
    this.lib = lib;
    this.op = op;
    this.names = names;
    this.checks = checks;
  }

  /** The methods in the order the launcher declares them. */
  List<MethodSpec> methods() {
    List<MethodSpec> out = new ArrayList<>();
    out.add(hostMethod());
    out.add(deviceMethod());
    for (int k = 0; k < op.outputs().size(); k++) {
      out.add(allocate(k, HOST_TENSOR));
      out.add(allocate(k, DEVICE_TENSOR));
    }
    return out;
  }

  private MethodSpec hostMethod() {
    MethodSpec.Builder m =
        MethodSpec.methodBuilder(op.name()).addModifiers(Modifier.PUBLIC).addJavadoc(doc(false));
    addParams(m, HOST_TENSOR);
    m.addStatement("this.lifecycle.checkOpen()");
    m.addStatement("long[] $N = $L", names.dims, checks.dimsCall());
    m.addStatement("$L", checks.checkOutputsCall());
    m.addStatement("$L", noAliasingCall(""));
    m.addStatement(
        "$T.onDevice(device, new $T[] {$L}, new $T[] {$L}, $N -> $N($N, $N))",
        LAUNCHERS,
        HOST_TENSOR,
        String.join(", ", names.inputs),
        HOST_TENSOR,
        String.join(", ", names.outputs),
        names.args,
        names.launchMethod,
        names.dims,
        names.args);
    return m.build();
  }

  private MethodSpec deviceMethod() {
    MethodSpec.Builder m =
        MethodSpec.methodBuilder(op.name()).addModifiers(Modifier.PUBLIC).addJavadoc(doc(true));
    addParams(m, DEVICE_TENSOR);
    m.addStatement("this.lifecycle.checkOpen()");
    for (String n : names.arguments()) {
      m.addStatement("$T.checkDevice($S, $S, device, $N)", LAUNCHERS, op.name(), n, n);
    }
    m.addStatement("long[] $N = $L", names.dims, checks.dimsCall());
    m.addStatement("$L", checks.checkOutputsCall());
    m.addStatement("$L", noAliasingCall(".buffer()"));
    m.addStatement(
        "$N($N, new Object[] {$L})",
        names.launchMethod,
        names.dims,
        names.arguments().stream().map(n -> n + ".buffer()").collect(Collectors.joining(", ")));
    return m.build();
  }

  private void addParams(MethodSpec.Builder m, ClassName type) {
    for (String n : names.arguments()) {
      m.addParameter(type, n);
    }
    nonNull(m, names.arguments());
  }

  /** A null argument is a NullPointerException naming the operator and the argument. */
  private void nonNull(MethodSpec.Builder m, List<String> args) {
    for (String n : args) {
      m.addStatement(
          "$T.requireNonNull($N, $S)",
          java.util.Objects.class,
          n,
          op.name() + ": argument '" + n + "' is null");
    }
  }

  /** Rejects outputs that alias inputs or each other, naming both. */
  private CodeBlock noAliasingCall(String suffix) {
    List<String> all = names.arguments();
    return CodeBlock.of(
        "$T.noAliasing($S, $S, $L, $L)",
        CHECKS,
        op.name(),
        String.join(", ", all),
        names.inputs.size(),
        all.stream().map(n -> n + suffix).collect(Collectors.joining(", ")));
  }

  private MethodSpec allocate(int k, ClassName type) {
    Argument out = op.outputs().get(k);
    String name =
        "allocate"
            + Character.toUpperCase(op.name().charAt(0))
            + op.name().substring(1)
            + (op.outputs().size() == 1 ? "Output" : capitalize(OperatorNames.javaName(out.name())))
            // With no inputs the two take no parameters: the device tensor's is named apart.
            + (names.inputs.isEmpty() && type == DEVICE_TENSOR ? "OnDevice" : "");
    MethodSpec.Builder m =
        MethodSpec.methodBuilder(name)
            .addModifiers(Modifier.PUBLIC)
            .returns(type)
            .addJavadoc(
                "A new $L for output {@code $L} of {@link #$L}, of the shape the inputs imply:"
                    + " $L.\n",
                type == HOST_TENSOR ? "host tensor (zeros)" : "device tensor (uninitialized)",
                out.name(),
                op.name(),
                describe(out));
    for (String n : names.inputs) {
      m.addParameter(type, n);
    }
    nonNull(m, names.inputs);
    for (String n : names.inputs) {
      m.addStatement("$T.checkOpen($S, $S, $N)", LAUNCHERS, op.name(), n, n);
    }
    m.addStatement("this.lifecycle.checkOpen()");
    m.addStatement("long[] $N = $L", names.dims, checks.dimsCall());
    checks.bindDims(m, out.shape());
    // Each dim checked not negative, naming the output and the dim (inputs too small for a
    // window: (len - 2) = -1).
    List<CodeBlock> dims = new ArrayList<>();
    for (int ax = 0; ax < out.shape().size(); ax++) {
      Expr e = out.shape().get(ax);
      dims.add(
          CodeBlock.of(
              "$T.outputDim($S, $S, $L, $L, $S)",
              LAUNCHERS,
              op.name(),
              out.name(),
              ax,
              JavaExpr.print(e, names.dimLocals),
              ExprPrinter.print(e)));
    }
    CodeBlock shape = CodeBlock.join(dims, ", ");
    if (type == HOST_TENSOR) {
      m.addStatement(
          "return $T.zeros($T.$L, $L)", HOST_TENSOR, DATA_TYPE, out.dtype().name(), shape);
    } else {
      m.addStatement(
          "return $T.allocate(device, $T.$L, $L)",
          DEVICE_TENSOR,
          DATA_TYPE,
          out.dtype().name(),
          shape);
    }
    return m.build();
  }

  private CodeBlock doc(boolean device) {
    CodeBlock.Builder d = CodeBlock.builder();
    d.add(
        "Runs operator {@code $L} on $L (declared by {@code $L.$L}):\n",
        op.name(),
        !device
            ? "host tensors"
            : checksData()
                ? "tensors in the device's memory (on GPUs it waits for the kernels, to read"
                    + " whether they met an index outside its tensor or a division by zero)"
                : "tensors in the device's memory, asynchronously on GPUs",
        lib.specClass().substring(lib.specClass().lastIndexOf('.') + 1).replace('$', '.'),
        op.specMethod());
    d.add("\n<pre>{@code\n");
    for (String e : op.expressions()) {
      d.add("$L\n", e);
    }
    d.add("}</pre>\n");
    if (!op.dims().isEmpty()) {
      d.add("\n<p>Dims $L are taken from the arguments' shapes.", op.dims());
    }
    List<String> specs = new ArrayList<>();
    for (Variant v : op.variants()) {
      if (!v.isGeneric()) {
        specs.add(
            v.specialization().entrySet().stream()
                .map(e -> e.getKey() + "=" + e.getValue())
                .collect(Collectors.joining(", ")));
      }
    }
    if (!specs.isEmpty()) {
      d.add(" Specialized kernels run when the dims are $L.", String.join("; or ", specs));
    }
    if (!device) {
      d.add(
          "\nOn a GPU the inputs are copied to the device and the outputs back, each call; use"
              + " the\n{@link $T} overload to keep data on the device.",
          DEVICE_TENSOR);
    }
    d.add("\n\n");
    for (int k = 0; k < op.inputs().size(); k++) {
      d.add(
          "@param $L input {@code $L}: $L\n",
          names.inputs.get(k),
          op.inputs().get(k).name(),
          describe(op.inputs().get(k)));
    }
    for (int k = 0; k < op.outputs().size(); k++) {
      d.add(
          "@param $L output {@code $L}, written: $L\n",
          names.outputs.get(k),
          op.outputs().get(k).name(),
          describe(op.outputs().get(k)));
    }
    d.add("@throws IllegalArgumentException when an argument's dtype or shape does not match\n");
    return d.build();
  }

  private static String describe(Argument a) {
    return a.dtype().name()
        + " "
        + a.shape().stream().map(ExprPrinter::print).collect(Collectors.joining(", ", "[", "]"));
  }

  private static String capitalize(String s) {
    return s.substring(0, 1).toUpperCase(Locale.ROOT) + s.substring(1);
  }

  /** Whether some GPU build of the operator reads its kernels' status word after them. */
  private boolean checksData() {
    return op.variants().stream()
        .flatMap(
            v ->
                java.util.stream.Stream.concat(
                    v.builds().values().stream(), v.wideBuilds().values().stream()))
        .anyMatch(
            b ->
                b.temporaries().stream()
                    .anyMatch(t -> t.name().equals(dev.kernelgen.codegen.KernelStatus.STATUS)));
  }
}
