package dev.kernelgen.driver;

import dev.kernelgen.diag.UserError;
import dev.kernelgen.te.Var;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.stream.Collectors;

/**
 * An operator's variants: the specializations its {@code @Operator} declares ({@code "n=1024"}),
 * parsed against its dims, and the names they give kernels ({@code add_n1024}) and configuration
 * keys ({@code /n=1024}). A variant with symbolic dims is built twice, with 32-bit and 64-bit
 * indices ({@link KernelDriver#WIDE_SUFFIX}).
 */
final class Variants {
  private Variants() {}

  static Map<Var, Long> parseSpecialization(String where, String text, Map<String, Var> dims) {
    Map<Var, Long> out = new LinkedHashMap<>();
    for (String part : text.split(",")) {
      String p = part.strip();
      int eq = p.indexOf('=');
      UserError.check(
          eq > 0, "%s: specialization '%s': '%s' is not of the form dim=value", where, text, p);
      String name = p.substring(0, eq).strip();
      Var v = dims.get(name);
      UserError.check(
          v != null,
          "%s: specialization '%s' names dim '%s', but the operator's dims are %s",
          where,
          text,
          name,
          dims.keySet());
      long value;
      try {
        value = Long.parseLong(p.substring(eq + 1).strip());
      } catch (NumberFormatException e) {
        throw new UserError(
            where + ": specialization '" + text + "': value of '" + name + "' is not an integer");
      }
      UserError.check(
          value > 0, "%s: specialization '%s': '%s' must be positive", where, text, name);
      UserError.check(
          out.put(v, value) == null, "%s: specialization '%s' sets '%s' twice", where, text, name);
    }
    // In the order of the operator's dims, so that equal specializations get equal names.
    Map<Var, Long> ordered = new LinkedHashMap<>();
    for (Var v : dims.values()) {
      if (out.containsKey(v)) {
        ordered.put(v, out.get(v));
      }
    }
    return ordered;
  }

  static String suffix(Map<Var, Long> spec) {
    StringBuilder sb = new StringBuilder();
    for (var e : spec.entrySet()) {
      sb.append('_').append(e.getKey().name()).append(e.getValue());
    }
    return sb.toString();
  }

  static String specKey(Map<Var, Long> spec) {
    if (spec.isEmpty()) {
      return "";
    }
    return "/"
        + spec.entrySet().stream()
            .map(e -> e.getKey().name() + "=" + e.getValue())
            .collect(Collectors.joining(","));
  }
}
