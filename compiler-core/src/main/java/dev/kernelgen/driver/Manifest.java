package dev.kernelgen.driver;

import dev.kernelgen.annotations.Target;
import dev.kernelgen.codegen.LaunchGeometry;
import dev.kernelgen.driver.LibraryModel.Argument;
import dev.kernelgen.driver.LibraryModel.Build;
import dev.kernelgen.driver.LibraryModel.Kernel;
import dev.kernelgen.driver.LibraryModel.Param;
import dev.kernelgen.driver.LibraryModel.Variant;
import dev.kernelgen.te.ExprPrinter;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;

/**
 * A library's {@code manifest.json} (format {@link KernelDriver#MANIFEST_FORMAT}) and the one-line
 * summary the build logs: two renderings of a {@link LibraryModel}.
 */
final class Manifest {
  private Manifest() {}

  /** The manifest of {@code m}, whose modules' entries are {@code modules} by target name. */
  static Map<String, Object> manifest(LibraryModel m, Map<String, Object> modules) {
    Map<String, Object> j = new LinkedHashMap<>();
    j.put("format", KernelDriver.MANIFEST_FORMAT);
    j.put("library", m.name());
    j.put("spec", m.specClass());
    j.put("targets", m.targets().stream().map(Target::name).toList());
    j.put("modules", modules);
    Map<String, Object> ops = new LinkedHashMap<>();
    for (LibraryModel.Operator op : m.operators()) {
      Map<String, Object> o = new LinkedHashMap<>();
      o.put("method", op.specMethod());
      o.put("inputs", op.inputs().stream().map(Manifest::argumentJson).toList());
      o.put("outputs", op.outputs().stream().map(Manifest::argumentJson).toList());
      o.put("dims", op.dims());
      o.put("expressions", op.expressions());
      // How many kernels the operator became, per variant and target.
      Map<String, Object> counts = new LinkedHashMap<>();
      for (Variant v : op.variants()) {
        Map<String, Object> perTarget = new LinkedHashMap<>();
        for (Target t : m.targets()) {
          perTarget.put(t.name(), v.builds().get(t).kernels().size());
        }
        counts.put(
            v.isGeneric()
                ? "generic"
                : v.specialization().entrySet().stream()
                    .map(e -> e.getKey() + "=" + e.getValue())
                    .collect(Collectors.joining(",")),
            perTarget);
      }
      o.put("kernelCount", counts);
      List<Object> vs = new ArrayList<>();
      for (Variant v : op.variants()) {
        Map<String, Object> vj = new LinkedHashMap<>();
        vj.put("specialization", v.specialization());
        Map<String, Object> bs = new LinkedHashMap<>();
        for (var e : v.builds().entrySet()) {
          bs.put(e.getKey().name(), buildJson(e.getValue()));
        }
        vj.put("targets", bs);
        if (!v.wideBuilds().isEmpty()) {
          Map<String, Object> ws = new LinkedHashMap<>();
          for (var e : v.wideBuilds().entrySet()) {
            ws.put(e.getKey().name(), buildJson(e.getValue()));
          }
          vj.put("targetsIndex64", ws);
        }
        vs.add(vj);
      }
      o.put("variants", vs);
      ops.put(op.name(), o);
    }
    j.put("operators", ops);
    return j;
  }

  private static Map<String, Object> argumentJson(Argument a) {
    Map<String, Object> j = new LinkedHashMap<>();
    j.put("name", a.name());
    j.put("dtype", a.dtype().name());
    j.put("shape", a.shape().stream().map(ExprPrinter::print).toList());
    return j;
  }

  private static Map<String, Object> buildJson(Build b) {
    Map<String, Object> j = new LinkedHashMap<>();
    j.put("schedule", b.schedule());
    j.put("configuration", b.configurationSource());
    j.put("knobs", b.knobs());
    Map<String, Object> space = new LinkedHashMap<>(b.space());
    j.put("space", space);
    if (!b.tunedByIsaLevel().isEmpty()) {
      // The C libraries of these levels embed their tuning record's schedule, not the above.
      Map<String, Object> levels = new LinkedHashMap<>();
      b.tunedByIsaLevel()
          .forEach((level, config) -> levels.put(level, new java.util.TreeMap<>(config)));
      j.put("tunedByIsaLevel", levels);
    }
    j.put("trace", b.trace());
    j.put(
        "temporaries",
        b.temporaries().stream()
            .map(
                t -> {
                  // Insertion order, not Map.of's (randomized per JVM): two clean builds write
                  // the same manifest.
                  Map<String, Object> tj = new LinkedHashMap<>();
                  tj.put("name", t.name());
                  tj.put("dtype", t.dtype().name());
                  tj.put("size", ExprPrinter.print(t.size()));
                  return (Object) tj;
                })
            .toList());
    List<Object> ks = new ArrayList<>();
    for (Kernel k : b.kernels()) {
      Map<String, Object> kj = new LinkedHashMap<>();
      kj.put("name", k.name());
      kj.put(
          "params",
          k.params().stream()
              .map(
                  p ->
                      p instanceof Param.Dim
                          ? p.name() + ": " + p.dtype()
                          : p.name() + ": " + p.dtype() + "*")
              .toList());
      if (k.geometry() != null) {
        LaunchGeometry g = k.geometry();
        kj.put(
            "grid",
            List.of(g.gridX(), g.gridY(), g.gridZ()).stream().map(ExprPrinter::print).toList());
        kj.put(
            "block",
            List.of(g.blockX(), g.blockY(), g.blockZ()).stream().map(ExprPrinter::print).toList());
      }
      ks.add(kj);
    }
    j.put("kernels", ks);
    return j;
  }

  static String summary(LibraryModel m) {
    StringBuilder sb = new StringBuilder();
    sb.append("library ").append(m.name()).append(": ").append(m.targets());
    for (LibraryModel.Operator op : m.operators()) {
      sb.append("\n  ").append(op.name()).append(':');
      for (Variant v : op.variants()) {
        sb.append(v.isGeneric() ? " generic" : " " + v.specialization());
        sb.append(" [");
        sb.append(
            v.builds().entrySet().stream()
                .map(
                    e ->
                        e.getKey()
                            + " "
                            + e.getValue().kernels().size()
                            + " kernel(s), "
                            + e.getValue().schedule()
                            + (e.getValue().knobs().isEmpty() ? "" : " " + e.getValue().knobs()))
                .collect(Collectors.joining("; ")));
        sb.append(']');
      }
    }
    return sb.toString();
  }
}
