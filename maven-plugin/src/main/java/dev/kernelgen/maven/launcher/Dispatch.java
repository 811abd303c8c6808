package dev.kernelgen.maven.launcher;

import static dev.kernelgen.maven.launcher.RuntimeTypes.DATA_TYPE;
import static dev.kernelgen.maven.launcher.RuntimeTypes.DEVICE_BUFFER;
import static dev.kernelgen.maven.launcher.RuntimeTypes.ELEMENT_COUNTS;
import static dev.kernelgen.maven.launcher.RuntimeTypes.LAUNCHERS;
import static dev.kernelgen.maven.launcher.RuntimeTypes.LAUNCH_CONFIG;
import static dev.kernelgen.maven.launcher.RuntimeTypes.LIFECYCLE_USE;
import static dev.kernelgen.maven.launcher.RuntimeTypes.WORKSPACE_LEASE;

import com.palantir.javapoet.CodeBlock;
import com.palantir.javapoet.MethodSpec;
import dev.kernelgen.annotations.Target;
import dev.kernelgen.codegen.KernelStatus;
import dev.kernelgen.diag.UserError;
import dev.kernelgen.driver.LibraryModel;
import dev.kernelgen.driver.LibraryModel.Argument;
import dev.kernelgen.driver.LibraryModel.Build;
import dev.kernelgen.driver.LibraryModel.Kernel;
import dev.kernelgen.driver.LibraryModel.Operator;
import dev.kernelgen.driver.LibraryModel.Param;
import dev.kernelgen.driver.LibraryModel.Variant;
import dev.kernelgen.te.DType;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import javax.lang.model.element.Modifier;

/**
 * An operator's {@code <op>Launch}: inside a use of the lifecycle, per target (targets whose code
 * is the same share a case), the specialized variants whose dims match, then the generic one; per
 * variant its 64-bit index kernels where a tensor is too large for 32-bit indices, else the 32-bit
 * ones; per build its temporaries from the workspace and its kernels' launches, GPU kernels with
 * the grid their geometry gives for the actual dims, then the check of their status word.
 */
final class Dispatch {
  private final LibraryModel lib;
  private final Operator op;
  private final OperatorNames names;
  private final Signatures signatures;

  Dispatch(LibraryModel lib, Operator op, OperatorNames names, Signatures signatures) {
    this.lib = lib;
    this.op = op;
    this.names = names;
    this.signatures = signatures;
  }

  MethodSpec launchMethod() {
    MethodSpec.Builder m =
        MethodSpec.methodBuilder(names.launchMethod)
            .addModifiers(Modifier.PRIVATE)
            .addParameter(long[].class, names.dims)
            .addParameter(Object[].class, names.args);
    // Every dim: the kernels take them all, and specializations test them.
    for (int i = 0; i < op.dims().size(); i++) {
      m.addStatement("long $N = $N[$L]", names.dimLocals.get(op.dims().get(i)), names.dims, i);
    }
    // Targets whose code is the same share one case.
    Map<CodeBlock, List<Target>> cases = new LinkedHashMap<>();
    for (Target target : lib.targets()) {
      cases.computeIfAbsent(targetCode(target), c -> new ArrayList<>()).add(target);
    }
    // A call in flight: close() waits for it.
    m.beginControlFlow("try ($T $N = this.lifecycle.enter())", LIFECYCLE_USE, names.use);
    m.beginControlFlow("switch (device.target())");
    for (var e : cases.entrySet()) {
      m.beginControlFlow(
          "case $L ->", e.getValue().stream().map(Target::name).collect(Collectors.joining(", ")));
      m.addCode(e.getKey());
      m.endControlFlow();
    }
    if (lib.targets().size() < Target.values().length) {
      m.addStatement("default -> throw $T.noKernels(LIBRARY, device, TARGETS)", LAUNCHERS);
    }
    m.endControlFlow();
    m.endControlFlow();
    return m.build();
  }

  private CodeBlock targetCode(Target target) {
    CodeBlock.Builder c = CodeBlock.builder();
    List<Variant> ordered = new ArrayList<>(op.variants().subList(1, op.variants().size()));
    ordered.add(op.variants().get(0));
    for (Variant v : ordered) {
      Build b = v.builds().get(target);
      if (v.isGeneric()) {
        widthCode(c, target, v);
        buildCode(c, b);
      } else {
        String cond =
            v.specialization().entrySet().stream()
                .map(e -> names.dimLocals.get(e.getKey()) + " == " + e.getValue() + "L")
                .collect(Collectors.joining(" && "));
        c.beginControlFlow("if ($L)", cond);
        widthCode(c, target, v);
        buildCode(c, b);
        c.addStatement("return");
        c.endControlFlow();
      }
    }
    return c.build();
  }

  /**
   * For a variant with symbolic dims: its 64-bit index kernels when some tensor of the launch
   * (argument, temporary, or intermediate buffer of the C and Java kernels) holds more than {@code
   * ElementCounts.NARROW_ELEMENTS} elements, which also checks that each fits a buffer; the 32-bit
   * ones follow.
   */
  private void widthCode(CodeBlock.Builder c, Target target, Variant v) {
    Build wide = v.wideBuilds().get(target);
    if (wide == null) {
      return;
    }
    List<CodeBlock> counts = new ArrayList<>();
    List<Argument> args = new ArrayList<>(op.inputs());
    args.addAll(op.outputs());
    for (Argument a : args) {
      List<CodeBlock> of = new ArrayList<>();
      of.add(CodeBlock.of("$S, $S, $T.$L", op.name(), a.name(), DATA_TYPE, a.dtype().name()));
      a.shape().forEach(d -> of.add(CodeBlock.of("$L", JavaExpr.print(d, names.dimLocals))));
      counts.add(CodeBlock.of("$T.of($L)", ELEMENT_COUNTS, CodeBlock.join(of, ", ")));
    }
    List<LibraryModel.Temporary> buffers = new ArrayList<>(wide.temporaries());
    buffers.addAll(v.intermediates());
    for (LibraryModel.Temporary t : buffers) {
      counts.add(
          CodeBlock.of(
              "$T.of($S, $S, $T.$L, $L)",
              ELEMENT_COUNTS,
              op.name(),
              (wide.temporaries().contains(t) ? "temporary " : "intermediate ") + t.name(),
              DATA_TYPE,
              t.dtype().name(),
              JavaExpr.print(t.size(), names.dimLocals)));
    }
    c.beginControlFlow("if ($T.wide($L))", ELEMENT_COUNTS, CodeBlock.join(counts, ",\n    "));
    buildCode(c, wide);
    c.addStatement("return");
    c.endControlFlow();
  }

  /** The launches of one build's kernels, with its temporaries leased from the workspace. */
  private void buildCode(CodeBlock.Builder c, Build b) {
    Map<String, String> buffers = new LinkedHashMap<>();
    for (int k = 0; k < op.inputs().size(); k++) {
      buffers.put(op.inputs().get(k).name(), names.args + "[" + k + "]");
    }
    for (int k = 0; k < op.outputs().size(); k++) {
      buffers.put(op.outputs().get(k).name(), names.args + "[" + (op.inputs().size() + k) + "]");
    }
    boolean temps = !b.temporaries().isEmpty();
    if (temps) {
      // Temporaries from the launcher's workspace: no allocation per call (see Workspace).
      c.beginControlFlow("try ($T $N = this.workspace.acquire())", WORKSPACE_LEASE, names.lease);
      for (int k = 0; k < b.temporaries().size(); k++) {
        LibraryModel.Temporary tmp = b.temporaries().get(k);
        String local = names.temporaries.get(k);
        buffers.put(tmp.name(), local);
        if (tmp.name().equals(KernelStatus.STATUS)) {
          c.addStatement("$T $N = $N.status()", DEVICE_BUFFER, local, names.lease);
          continue;
        }
        c.addStatement(
            "$T $N = $N.buffer($L, $T.$L, $L)",
            DEVICE_BUFFER,
            local,
            names.lease,
            k,
            DATA_TYPE,
            tmp.dtype().name(),
            JavaExpr.print(tmp.size(), names.dimLocals));
      }
    }
    for (Kernel k : b.kernels()) {
      launch(c, k, buffers);
    }
    if (buffers.containsKey(KernelStatus.STATUS)) {
      // Kernels that met bad data (a gather's index, a division by zero) say so here.
      c.addStatement("$N.checkStatus($S)", names.lease, op.name());
    }
    if (temps) {
      c.endControlFlow();
    }
  }

  /** One kernel's launch; {@code buffers}: per buffer name, the expression of its buffer. */
  private void launch(CodeBlock.Builder c, Kernel k, Map<String, String> buffers) {
    List<String> args = new ArrayList<>();
    for (Param p : k.params()) {
      switch (p) {
        case Param.Buffer buf -> {
          String a = buffers.get(buf.name());
          if (a == null) {
            throw new UserError(
                "kernel " + k.name() + " takes buffer '" + buf.name() + "', which is unknown");
          }
          args.add(a);
        }
        case Param.Dim d -> {
          String local = names.dimLocals.get(d.name());
          args.add(d.dtype() == DType.INT64 ? local : "(int) " + local);
        }
      }
    }
    CodeBlock fn = CodeBlock.of("module.function($S, $N)", k.name(), signatures.field(k.params()));
    if (k.geometry() == null) {
      c.addStatement("$L.launch($T.HOST, $L)", fn, LAUNCH_CONFIG, String.join(", ", args));
      return;
    }
    var g = k.geometry();
    String extents =
        List.of(g.gridX(), g.gridY(), g.gridZ(), g.blockX(), g.blockY(), g.blockZ()).stream()
            .map(e -> JavaExpr.print(e, names.dimLocals))
            .collect(Collectors.joining(", "));
    c.beginControlFlow("");
    c.addStatement(
        "$T $N = $T.config($S, $L)", LAUNCH_CONFIG, names.config, LAUNCHERS, k.name(), extents);
    c.beginControlFlow("if ($N != null)", names.config);
    c.addStatement("$L.launch($N, $L)", fn, names.config, String.join(", ", args));
    c.endControlFlow();
    c.endControlFlow();
  }
}
