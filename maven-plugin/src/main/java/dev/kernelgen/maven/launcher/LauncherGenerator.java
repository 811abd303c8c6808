package dev.kernelgen.maven.launcher;

import com.palantir.javapoet.ClassName;
import com.palantir.javapoet.CodeBlock;
import com.palantir.javapoet.FieldSpec;
import com.palantir.javapoet.JavaFile;
import com.palantir.javapoet.MethodSpec;
import com.palantir.javapoet.ParameterizedTypeName;
import com.palantir.javapoet.TypeSpec;
import dev.kernelgen.annotations.Target;
import dev.kernelgen.diag.UserError;
import dev.kernelgen.driver.LibraryModel;
import dev.kernelgen.driver.LibraryModel.Argument;
import dev.kernelgen.driver.LibraryModel.Build;
import dev.kernelgen.driver.LibraryModel.Kernel;
import dev.kernelgen.driver.LibraryModel.Operator;
import dev.kernelgen.driver.LibraryModel.Param;
import dev.kernelgen.driver.LibraryModel.Variant;
import dev.kernelgen.te.DType;
import dev.kernelgen.te.Expr;
import dev.kernelgen.te.ExprPrinter;
import dev.kernelgen.te.FreeVars;
import dev.kernelgen.te.Var;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;
import javax.lang.model.SourceVersion;
import javax.lang.model.element.Modifier;

/**
 * Generates the launcher class of a kernel library: {@code load(Device)} and {@code load()}, and
 * per operator a method for host tensors, one for device tensors, and {@code allocate...} helpers
 * for the outputs. Output is deterministic: it depends only on the model, whose order is fixed.
 */
public final class LauncherGenerator {
  private static final String RUNTIME = "dev.kernelgen.runtime";
  private static final String LAUNCH = "dev.kernelgen.runtime.launch";
  private static final ClassName DEVICE = ClassName.get(RUNTIME, "Device");
  private static final ClassName DATA_TYPE = ClassName.get(RUNTIME, "DataType");
  private static final ClassName HOST_TENSOR = ClassName.get(RUNTIME, "HostTensor");
  private static final ClassName DEVICE_BUFFER = ClassName.get(RUNTIME, "DeviceBuffer");
  private static final ClassName KERNEL_MODULE = ClassName.get(RUNTIME, "KernelModule");
  private static final ClassName KERNEL_BINARY = ClassName.get(RUNTIME, "KernelBinary");
  private static final ClassName SIGNATURE = ClassName.get(RUNTIME, "KernelSignature");
  private static final ClassName PARAM_KIND = SIGNATURE.nestedClass("ParamKind");
  private static final ClassName LAUNCH_CONFIG = ClassName.get(RUNTIME, "LaunchConfig");
  private static final ClassName TARGET = ClassName.get("dev.kernelgen.annotations", "Target");
  private static final ClassName DEVICE_TENSOR = ClassName.get(LAUNCH, "DeviceTensor");
  private static final ClassName LAUNCHERS = ClassName.get(LAUNCH, "Launchers");
  private static final ClassName LIFECYCLE = ClassName.get(RUNTIME, "Lifecycle");
  private static final ClassName CHECKS = ClassName.get(RUNTIME, "Checks");
  private static final ClassName WORKSPACE = ClassName.get(LAUNCH, "Workspace");
  private static final ClassName ELEMENT_COUNTS = ClassName.get(LAUNCH, "ElementCounts");

  /** A generated source file: its path under the source root and its text. */
  public record GeneratedSource(String path, String content) {}

  private final LibraryModel lib;
  private final ClassName self;
  private final Map<String, String> signatures = new LinkedHashMap<>();

  private LauncherGenerator(LibraryModel lib) {
    this.lib = lib;
    this.self = ClassName.get(lib.packageName(), lib.name());
  }

  /** The launcher's source and, with the JAVA target, the Java kernels' source. */
  public static List<GeneratedSource> generate(LibraryModel lib) {
    List<GeneratedSource> out = new ArrayList<>();
    String dir = lib.packageName().isEmpty() ? "" : lib.packageName().replace('.', '/') + "/";
    out.add(new GeneratedSource(dir + lib.name() + ".java", launcher(lib).toString()));
    if (lib.javaKernelSource() != null) {
      out.add(new GeneratedSource(dir + lib.javaKernelClass() + ".java", lib.javaKernelSource()));
    }
    return out;
  }

  /** The launcher class of {@code lib}. */
  public static JavaFile launcher(LibraryModel lib) {
    return new LauncherGenerator(lib).file();
  }

  private JavaFile file() {
    TypeSpec.Builder t =
        TypeSpec.classBuilder(self)
            .addModifiers(Modifier.PUBLIC, Modifier.FINAL)
            .addSuperinterface(AutoCloseable.class)
            .addJavadoc(classDoc());
    t.addField(
        FieldSpec.builder(String.class, "LIBRARY", Modifier.PUBLIC, Modifier.STATIC, Modifier.FINAL)
            .addJavadoc("The library's name.\n")
            .initializer("$S", lib.name())
            .build());
    t.addField(
        FieldSpec.builder(
                ParameterizedTypeName.get(ClassName.get(List.class), TARGET),
                "TARGETS",
                Modifier.PUBLIC,
                Modifier.STATIC,
                Modifier.FINAL)
            .addJavadoc("The targets the library has kernels for.\n")
            .initializer(
                "$T.of($L)",
                List.class,
                lib.targets().stream()
                    .map(x -> CodeBlock.of("$T.$L", TARGET, x.name()))
                    .collect(CodeBlock.joining(", ")))
            .build());
    t.addField(
        FieldSpec.builder(
                String.class, "RESOURCES", Modifier.PRIVATE, Modifier.STATIC, Modifier.FINAL)
            .initializer("$S", lib.resourceDir() + "/")
            .build());
    t.addField(DEVICE, "device", Modifier.PRIVATE, Modifier.FINAL);
    t.addField(KERNEL_MODULE, "module", Modifier.PRIVATE, Modifier.FINAL);
    // Open or closed: calls after close() throw IllegalStateException, close() waits for calls.
    t.addField(LIFECYCLE, "lifecycle", Modifier.PRIVATE, Modifier.FINAL);
    boolean temps = hasTemporaries();
    if (temps) {
      t.addField(WORKSPACE, "workspace", Modifier.PRIVATE, Modifier.FINAL);
    }
    MethodSpec.Builder ctor =
        MethodSpec.constructorBuilder()
            .addModifiers(Modifier.PRIVATE)
            .addParameter(DEVICE, "device")
            .addParameter(KERNEL_MODULE, "module")
            .addStatement("this.device = device")
            .addStatement("this.module = module")
            .addStatement("this.lifecycle = $T.lifecycle(LIBRARY, device)", LAUNCHERS);
    if (temps) {
      ctor.addStatement("this.workspace = new $T(device)", WORKSPACE);
    }
    t.addMethod(ctor.build());
    t.addMethod(loadDevice());
    t.addMethod(
        MethodSpec.methodBuilder("load")
            .addModifiers(Modifier.PUBLIC, Modifier.STATIC)
            .returns(self)
            .addJavadoc(
                "Loads the kernels on the best available device among {@link #TARGETS}: CUDA, then"
                    + " OpenCL,\nthen C, then Java; the system property {@code kernelgen.target}"
                    + " (or the environment\nvariable {@code KERNELGEN_TARGET}) names another."
                    + " Where the C libraries cannot\nload on this machine, the Java kernels run"
                    + " (the reason is logged once).\n")
            .addStatement("return $T.load(LIBRARY, TARGETS, $T::load)", LAUNCHERS, self)
            .build());
    t.addMethod(
        MethodSpec.methodBuilder("device")
            .addModifiers(Modifier.PUBLIC)
            .returns(DEVICE)
            .addJavadoc("The device the kernels run on.\n")
            .addStatement("return device")
            .build());
    List<MethodSpec> privates = new ArrayList<>();
    for (Operator op : lib.operators()) {
      new OperatorGen(op).emit(t, privates);
    }
    MethodSpec.Builder close =
        MethodSpec.methodBuilder("close")
            .addAnnotation(Override.class)
            .addModifiers(Modifier.PUBLIC)
            .addJavadoc(
                "Unloads the kernels once the calls in flight are done; later calls throw\n"
                    + "{@link IllegalStateException}. The device stays usable.\n")
            .beginControlFlow("if (this.lifecycle.close())");
    if (temps) {
      close
          .beginControlFlow("try")
          .addStatement("this.workspace.close()")
          .nextControlFlow("finally")
          .addStatement("module.close()")
          .endControlFlow();
    } else {
      close.addStatement("module.close()");
    }
    t.addMethod(close.endControlFlow().build());
    t.addMethods(privates);
    for (var e : signatures.entrySet()) {
      t.addField(
          FieldSpec.builder(
                  SIGNATURE, e.getValue(), Modifier.PRIVATE, Modifier.STATIC, Modifier.FINAL)
              .initializer(signatureInit(e.getKey()))
              .build());
    }
    return JavaFile.builder(lib.packageName(), t.build())
        .skipJavaLangImports(true)
        .indent("  ")
        .build();
  }

  private boolean hasTemporaries() {
    for (Operator op : lib.operators()) {
      for (Variant v : op.variants()) {
        for (Build b : v.builds().values()) {
          if (!b.temporaries().isEmpty()) {
            return true;
          }
        }
      }
    }
    return false;
  }

  private CodeBlock classDoc() {
    CodeBlock.Builder d = CodeBlock.builder();
    d.add(
        "Kernels of library {@code $L}, generated by kernelgen from {@code $L}: do not edit.\n",
        lib.name(),
        lib.specClass().replace('$', '.'));
    d.add("\n<p>Targets: $L. ", lib.targets());
    d.add("Operators: $L.\n", lib.operators().stream().map(Operator::name).toList());
    d.add("\n<pre>{@code\n");
    d.add("try ($L k = $L.load()) {\n", lib.name(), lib.name());
    if (!lib.operators().isEmpty()) {
      Operator op = lib.operators().get(0);
      List<String> names = new ArrayList<>();
      for (Argument a : op.inputs()) {
        names.add(javaName(a.name()));
      }
      Set<String> used = new LinkedHashSet<>(names);
      used.addAll(op.dims());
      for (Argument a : op.outputs()) {
        names.add(unique(outputName(op, a, used), used));
      }
      d.add("  k.$L($L);\n", op.name(), String.join(", ", names));
    }
    d.add("}\n}</pre>\n");
    return d.build();
  }

  private MethodSpec loadDevice() {
    CodeBlock.Builder sw = CodeBlock.builder().add("$T binary =\n", KERNEL_BINARY).indent();
    sw.add("switch (device.target()) {\n").indent();
    for (Target target : lib.targets()) {
      LibraryModel.Module m = lib.modules().get(target);
      switch (target) {
        case C ->
            sw.add(
                "case C -> $T.c(LIBRARY, $T.class$L);\n",
                LAUNCHERS,
                self,
                m.sharedLibraries().stream()
                    .map(
                        l ->
                            CodeBlock.of(
                                ",\n    $S, RESOURCES + $S, $S",
                                l.isaLevel(),
                                l.path(),
                                l.sha256()))
                    .collect(CodeBlock.joining("")));
        case OPENCL ->
            sw.add(
                "case OPENCL -> $T.openCl(LIBRARY, $T.class, RESOURCES + $S);\n",
                LAUNCHERS,
                self,
                m.source());
        case CUDA ->
            sw.add(
                "case CUDA -> $T.cudaFatbin(LIBRARY, $T.class, RESOURCES + $S, $S$L);\n",
                LAUNCHERS,
                self,
                m.fatbin().path(),
                m.fatbin().sha256(),
                m.fatbin().architectures().stream()
                    .map(a -> CodeBlock.of(", $S", a))
                    .collect(CodeBlock.joining("")));
        case JAVA ->
            sw.add(
                "case JAVA -> new $T.Java(LIBRARY, $T.class);\n",
                KERNEL_BINARY,
                ClassName.get(lib.packageName(), lib.javaKernelClass()));
      }
    }
    if (lib.targets().size() < Target.values().length) {
      sw.add("default -> throw $T.noKernels(LIBRARY, device, TARGETS);\n", LAUNCHERS);
    }
    sw.unindent().add("};\n").unindent();
    return MethodSpec.methodBuilder("load")
        .addModifiers(Modifier.PUBLIC, Modifier.STATIC)
        .returns(self)
        .addParameter(DEVICE, "device")
        .addJavadoc(
            "Loads the kernels for {@code device} from the class path.\n\n"
                + "@throws $T when the library has no kernels for the device's target, or the"
                + " device rejects them\n",
            ClassName.get(RUNTIME, "DeviceException"))
        .addStatement("$T.requireNonNull(device, $S)", java.util.Objects.class, "device")
        .addCode(sw.build())
        .addStatement("return new $T(device, device.loadModule(binary))", self)
        .build();
  }

  /** The generated members of one operator. */
  private final class OperatorGen {
    private final Operator op;
    private final List<String> inNames = new ArrayList<>();
    private final List<String> outNames = new ArrayList<>();

    /** For each dim: where it is bound (argument index, axis). */
    private final Map<String, int[]> binding = new LinkedHashMap<>();

    OperatorGen(Operator op) {
      this.op = op;
      Set<String> used = new LinkedHashSet<>(List.of("dims_", "args_"));
      used.addAll(op.dims()); // dims are locals beside the arguments (checkOutputs)
      for (Argument a : op.inputs()) {
        inNames.add(unique(javaName(a.name()), used));
      }
      for (Argument a : op.outputs()) {
        outNames.add(unique(outputName(op, a, used), used));
      }
      for (int k = 0; k < op.inputs().size(); k++) {
        List<Expr> shape = op.inputs().get(k).shape();
        for (int ax = 0; ax < shape.size(); ax++) {
          if (shape.get(ax) instanceof Var v) {
            binding.putIfAbsent(v.name(), new int[] {k, ax});
          }
        }
      }
      for (String d : op.dims()) {
        if (!binding.containsKey(d)) {
          throw new UserError(
              "operator '"
                  + op.name()
                  + "': dim '"
                  + d
                  + "' is not the extent of any input's axis, so the launcher cannot infer it"
                  + " from the inputs; make it one");
        }
      }
    }

    private String cap() {
      return Character.toUpperCase(op.name().charAt(0)) + op.name().substring(1);
    }

    void emit(TypeSpec.Builder t, List<MethodSpec> privates) {
      t.addMethod(hostMethod());
      t.addMethod(deviceMethod());
      for (int k = 0; k < op.outputs().size(); k++) {
        t.addMethod(allocate(k, HOST_TENSOR));
        t.addMethod(allocate(k, DEVICE_TENSOR));
      }
      privates.add(dimsMethod());
      privates.add(checkOutputsMethod());
      privates.add(launchMethod());
    }

    private CodeBlock doc(boolean device) {
      CodeBlock.Builder d = CodeBlock.builder();
      d.add(
          "Runs operator {@code $L} on $L (declared by {@code $L.$L}):\n",
          op.name(),
          device ? "tensors in the device's memory, asynchronously on GPUs" : "host tensors",
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
            inNames.get(k),
            op.inputs().get(k).name(),
            describe(op.inputs().get(k)));
      }
      for (int k = 0; k < op.outputs().size(); k++) {
        d.add(
            "@param $L output {@code $L}, written: $L\n",
            outNames.get(k),
            op.outputs().get(k).name(),
            describe(op.outputs().get(k)));
      }
      d.add("@throws IllegalArgumentException when an argument's dtype or shape does not match\n");
      return d.build();
    }

    private String describe(Argument a) {
      return a.dtype().name()
          + " "
          + a.shape().stream().map(ExprPrinter::print).collect(Collectors.joining(", ", "[", "]"));
    }

    private MethodSpec hostMethod() {
      MethodSpec.Builder m =
          MethodSpec.methodBuilder(op.name()).addModifiers(Modifier.PUBLIC).addJavadoc(doc(false));
      addParams(m, HOST_TENSOR);
      m.addStatement("this.lifecycle.checkOpen()");
      m.addStatement("long[] dims_ = $L", dimsCall());
      m.addStatement("$L", checkOutputsCall());
      m.addStatement("$L", noAliasingCall(""));
      m.addStatement(
          "$T.onDevice(device, new $T[] {$L}, new $T[] {$L}, args_ -> $LLaunch(dims_, args_))",
          LAUNCHERS,
          HOST_TENSOR,
          String.join(", ", inNames),
          HOST_TENSOR,
          String.join(", ", outNames),
          op.name());
      return m.build();
    }

    private MethodSpec deviceMethod() {
      MethodSpec.Builder m =
          MethodSpec.methodBuilder(op.name()).addModifiers(Modifier.PUBLIC).addJavadoc(doc(true));
      addParams(m, DEVICE_TENSOR);
      m.addStatement("this.lifecycle.checkOpen()");
      List<String> all = allNames();
      for (String n : all) {
        m.addStatement("$T.checkDevice($S, $S, device, $L)", LAUNCHERS, op.name(), n, n);
      }
      m.addStatement("long[] dims_ = $L", dimsCall());
      m.addStatement("$L", checkOutputsCall());
      m.addStatement("$L", noAliasingCall(".buffer()"));
      m.addStatement(
          "$LLaunch(dims_, new Object[] {$L})",
          op.name(),
          all.stream().map(n -> n + ".buffer()").collect(Collectors.joining(", ")));
      return m.build();
    }

    private List<String> allNames() {
      List<String> all = new ArrayList<>(inNames);
      all.addAll(outNames);
      return all;
    }

    private void addParams(MethodSpec.Builder m, ClassName type) {
      for (String n : allNames()) {
        m.addParameter(type, n);
      }
    }

    private CodeBlock dimsCall() {
      return CodeBlock.of(
          "$LDims($L)",
          op.name(),
          inNames.stream()
              .map(n -> n + ".dtype(), " + n + ".shape()")
              .collect(Collectors.joining(", ")));
    }

    /** Rejects outputs that alias inputs or each other, naming both. */
    private CodeBlock noAliasingCall(String suffix) {
      return CodeBlock.of(
          "$T.noAliasing($S, $S, $L, $L)",
          CHECKS,
          op.name(),
          String.join(", ", allNames()),
          inNames.size(),
          allNames().stream().map(n -> n + suffix).collect(Collectors.joining(", ")));
    }

    private CodeBlock checkOutputsCall() {
      return CodeBlock.of(
          "$LCheckOutputs(dims_, $L)",
          op.name(),
          outNames.stream()
              .map(n -> n + ".dtype(), " + n + ".shape()")
              .collect(Collectors.joining(", ")));
    }

    private MethodSpec allocate(int k, ClassName type) {
      Argument out = op.outputs().get(k);
      String name =
          "allocate"
              + cap()
              + (op.outputs().size() == 1 ? "Output" : capitalize(javaName(out.name())));
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
      for (String n : inNames) {
        m.addParameter(type, n);
      }
      m.addStatement("this.lifecycle.checkOpen()");
      m.addStatement("long[] dims_ = $L", dimsCall());
      bindDims(m, out.shape());
      CodeBlock shape =
          out.shape().stream()
              .map(e -> CodeBlock.of("$L", JavaExpr.print(e, dimNames())))
              .collect(CodeBlock.joining(", "));
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

    private Map<String, String> dimNames() {
      Map<String, String> m = new LinkedHashMap<>();
      for (String d : op.dims()) {
        m.put(d, SourceVersion.isKeyword(d) ? d + "_" : d);
      }
      return m;
    }

    /** Declares the dims the expressions use, from {@code dims_}. */
    private void bindDims(MethodSpec.Builder m, List<Expr> exprs) {
      Set<String> used = new LinkedHashSet<>();
      for (Expr e : exprs) {
        for (Var v : FreeVars.of(e)) {
          used.add(v.name());
        }
      }
      Map<String, String> names = dimNames();
      for (int i = 0; i < op.dims().size(); i++) {
        String d = op.dims().get(i);
        if (used.contains(d)) {
          m.addStatement("long $L = dims_[$L]", names.get(d), i);
        }
      }
    }

    private MethodSpec dimsMethod() {
      MethodSpec.Builder m =
          MethodSpec.methodBuilder(op.name() + "Dims")
              .addModifiers(Modifier.PRIVATE, Modifier.STATIC)
              .returns(long[].class);
      for (String n : inNames) {
        m.addParameter(DATA_TYPE, n + "Type");
        m.addParameter(long[].class, n);
      }
      for (int k = 0; k < op.inputs().size(); k++) {
        Argument a = op.inputs().get(k);
        String n = inNames.get(k);
        m.addStatement(
            "$T.check($S, $S, $LType, $L, $T.$L, $L)",
            LAUNCHERS,
            op.name(),
            n,
            n,
            n,
            DATA_TYPE,
            a.dtype().name(),
            a.shape().size());
      }
      Map<String, String> names = dimNames();
      for (var e : binding.entrySet()) {
        String src = inNames.get(e.getValue()[0]) + "[" + e.getValue()[1] + "]";
        if (dimType(e.getKey()) == DType.INT64) {
          m.addStatement("long $L = $L", names.get(e.getKey()), src);
        } else {
          m.addStatement(
              "long $L = $T.int32Dim($S, $S, $L)",
              names.get(e.getKey()),
              LAUNCHERS,
              op.name(),
              e.getKey(),
              src);
        }
      }
      for (int k = 0; k < op.inputs().size(); k++) {
        List<Expr> shape = op.inputs().get(k).shape();
        for (int ax = 0; ax < shape.size(); ax++) {
          Expr d = shape.get(ax);
          if (d instanceof Var v
              && binding.get(v.name())[0] == k
              && binding.get(v.name())[1] == ax) {
            continue;
          }
          checkDim(m, inNames.get(k), ax, d);
        }
      }
      m.addStatement(
          "return new long[] {$L}",
          op.dims().stream().map(names::get).collect(Collectors.joining(", ")));
      return m.build();
    }

    private void checkDim(MethodSpec.Builder m, String arg, int ax, Expr d) {
      m.addStatement(
          "$T.checkDim($S, $S, $L, $L, $L, $S)",
          LAUNCHERS,
          op.name(),
          arg,
          arg,
          ax,
          JavaExpr.print(d, dimNames()),
          ExprPrinter.print(d));
    }

    private DType dimType(String dim) {
      for (Variant v : op.variants()) {
        for (Build b : v.builds().values()) {
          for (Kernel k : b.kernels()) {
            for (Param p : k.params()) {
              if (p instanceof Param.Dim && p.name().equals(dim)) {
                return p.dtype();
              }
            }
          }
        }
      }
      return DType.INT32;
    }

    private MethodSpec checkOutputsMethod() {
      MethodSpec.Builder m =
          MethodSpec.methodBuilder(op.name() + "CheckOutputs")
              .addModifiers(Modifier.PRIVATE, Modifier.STATIC)
              .addParameter(long[].class, "dims_");
      for (String n : outNames) {
        m.addParameter(DATA_TYPE, n + "Type");
        m.addParameter(long[].class, n);
      }
      List<Expr> all = new ArrayList<>();
      op.outputs().forEach(a -> all.addAll(a.shape()));
      bindDims(m, all);
      for (int k = 0; k < op.outputs().size(); k++) {
        Argument a = op.outputs().get(k);
        String n = outNames.get(k);
        m.addStatement(
            "$T.check($S, $S, $LType, $L, $T.$L, $L)",
            LAUNCHERS,
            op.name(),
            n,
            n,
            n,
            DATA_TYPE,
            a.dtype().name(),
            a.shape().size());
        for (int ax = 0; ax < a.shape().size(); ax++) {
          checkDim(m, n, ax, a.shape().get(ax));
        }
      }
      return m.build();
    }

    private MethodSpec launchMethod() {
      MethodSpec.Builder m =
          MethodSpec.methodBuilder(op.name() + "Launch")
              .addModifiers(Modifier.PRIVATE)
              .addParameter(long[].class, "dims_")
              .addParameter(Object[].class, "args_");
      // Every dim: the kernels take them all, and specializations test them.
      Map<String, String> names = dimNames();
      for (int i = 0; i < op.dims().size(); i++) {
        m.addStatement("long $L = dims_[$L]", names.get(op.dims().get(i)), i);
      }
      // Targets whose code is the same share one case.
      Map<CodeBlock, List<Target>> cases = new LinkedHashMap<>();
      for (Target target : lib.targets()) {
        cases.computeIfAbsent(targetCode(target), c -> new ArrayList<>()).add(target);
      }
      // A call in flight: close() waits for it.
      m.beginControlFlow("try ($T.Use use_ = this.lifecycle.enter())", LIFECYCLE);
      m.beginControlFlow("switch (device.target())");
      for (var e : cases.entrySet()) {
        m.beginControlFlow(
            "case $L ->",
            e.getValue().stream().map(Target::name).collect(Collectors.joining(", ")));
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
          variantCode(c, target, b);
        } else {
          String cond =
              v.specialization().entrySet().stream()
                  .map(e -> dimNames().get(e.getKey()) + " == " + e.getValue() + "L")
                  .collect(Collectors.joining(" && "));
          c.beginControlFlow("if ($L)", cond);
          widthCode(c, target, v);
          variantCode(c, target, b);
          c.addStatement("return");
          c.endControlFlow();
        }
      }
      return c.build();
    }

    /**
     * For a variant with symbolic dims: its 64-bit index kernels when some tensor of the launch
     * (argument, temporary, or intermediate buffer of the C and Java kernels) holds more than
     * {@code ElementCounts.NARROW_ELEMENTS} elements, which also checks that each fits a buffer;
     * the 32-bit ones follow.
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
        a.shape().forEach(d -> of.add(CodeBlock.of("$L", JavaExpr.print(d, dimNames()))));
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
                JavaExpr.print(t.size(), dimNames())));
      }
      c.beginControlFlow("if ($T.wide($L))", ELEMENT_COUNTS, CodeBlock.join(counts, ",\n    "));
      variantCode(c, target, wide);
      c.addStatement("return");
      c.endControlFlow();
    }

    private void variantCode(CodeBlock.Builder c, Target target, Build b) {
      Map<String, String> buffers = new LinkedHashMap<>();
      for (int k = 0; k < op.inputs().size(); k++) {
        buffers.put(op.inputs().get(k).name(), "args_[" + k + "]");
      }
      for (int k = 0; k < op.outputs().size(); k++) {
        buffers.put(op.outputs().get(k).name(), "args_[" + (op.inputs().size() + k) + "]");
      }
      boolean temps = !b.temporaries().isEmpty();
      if (temps) {
        // Temporaries from the launcher's workspace: no allocation per call (see Workspace).
        c.beginControlFlow("try ($T.Lease lease_ = this.workspace.acquire())", WORKSPACE);
        for (int k = 0; k < b.temporaries().size(); k++) {
          LibraryModel.Temporary tmp = b.temporaries().get(k);
          String local = "temp" + k + "_";
          buffers.put(tmp.name(), local);
          c.addStatement(
              "$T $L = lease_.buffer($L, $T.$L, $L)",
              DEVICE_BUFFER,
              local,
              k,
              DATA_TYPE,
              tmp.dtype().name(),
              JavaExpr.print(tmp.size(), dimNames()));
        }
      }
      for (Kernel k : b.kernels()) {
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
            case Param.Dim d ->
                args.add(
                    d.dtype() == DType.INT64
                        ? dimNames().get(d.name())
                        : "(int) " + dimNames().get(d.name()));
          }
        }
        String fn =
            CodeBlock.of("module.function($S, $L)", k.name(), signature(k.params())).toString();
        if (k.geometry() == null) {
          c.addStatement("$L.launch($T.HOST, $L)", fn, LAUNCH_CONFIG, String.join(", ", args));
        } else {
          var g = k.geometry();
          String ex =
              List.of(g.gridX(), g.gridY(), g.gridZ(), g.blockX(), g.blockY(), g.blockZ()).stream()
                  .map(e -> JavaExpr.print(e, dimNames()))
                  .collect(Collectors.joining(", "));
          c.beginControlFlow("");
          c.addStatement("$T config = $T.config($S, $L)", LAUNCH_CONFIG, LAUNCHERS, k.name(), ex);
          c.beginControlFlow("if (config != null)");
          c.addStatement("$L.launch(config, $L)", fn, String.join(", ", args));
          c.endControlFlow();
          c.endControlFlow();
        }
      }
      if (temps) {
        c.endControlFlow();
      }
    }
  }

  /** The static field holding the signature of these parameters. */
  private String signature(List<Param> params) {
    String key =
        params.stream()
            .map(p -> p instanceof Param.Dim ? p.dtype().name() : "POINTER")
            .collect(Collectors.joining(","));
    return signatures.computeIfAbsent(key, k -> "SIGNATURE_" + signatures.size());
  }

  private CodeBlock signatureInit(String key) {
    return CodeBlock.of(
        "$T.of($L)",
        SIGNATURE,
        List.of(key.split(",")).stream()
            .map(k -> CodeBlock.of("$T.$L", PARAM_KIND, k))
            .collect(CodeBlock.joining(", ")));
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

  /**
   * An output's parameter: {@code out} for an operator's only output, {@code <tensor>Out} for one
   * of several, whatever its last stage is called, so that a stage named like an input ({@code
   * Bias} beside {@code bias}) does not turn the output into {@code bias2}; {@code output} where an
   * input is already called {@code out}.
   */
  static String outputName(Operator op, Argument out, Set<String> used) {
    if (op.outputs().size() > 1) {
      return javaName(out.name()) + "Out";
    }
    return used.contains("out") ? "output" : "out";
  }

  private static String unique(String name, Set<String> used) {
    String n = name;
    for (int k = 2; !used.add(n); k++) {
      n = name + k;
    }
    return n;
  }

  private static String capitalize(String s) {
    return s.substring(0, 1).toUpperCase(Locale.ROOT) + s.substring(1);
  }
}
