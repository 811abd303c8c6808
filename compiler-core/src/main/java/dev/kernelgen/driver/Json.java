package dev.kernelgen.driver;

import java.util.List;
import java.util.Map;

/**
 * Writes JSON for the manifest, by hand to keep compiler-core free of dependencies. Values are maps
 * (written in their iteration order, which callers keep deterministic), lists, strings, numbers,
 * booleans and null; two-space indentation, one member per line.
 */
final class Json {
  private Json() {}

  static String write(Object value) {
    StringBuilder sb = new StringBuilder();
    write(sb, value, 0);
    return sb.append('\n').toString();
  }

  private static void write(StringBuilder sb, Object v, int indent) {
    switch (v) {
      case null -> sb.append("null");
      case String s -> string(sb, s);
      case Number n -> sb.append(n);
      case Boolean b -> sb.append(b);
      case Map<?, ?> m -> {
        if (m.isEmpty()) {
          sb.append("{}");
          return;
        }
        sb.append("{\n");
        int k = 0;
        for (var e : m.entrySet()) {
          pad(sb, indent + 1);
          string(sb, String.valueOf(e.getKey()));
          sb.append(": ");
          write(sb, e.getValue(), indent + 1);
          sb.append(++k < m.size() ? ",\n" : "\n");
        }
        pad(sb, indent);
        sb.append('}');
      }
      case List<?> l -> {
        if (l.isEmpty()) {
          sb.append("[]");
          return;
        }
        boolean flat = l.stream().allMatch(x -> x instanceof Number || x instanceof Boolean);
        if (flat) {
          sb.append('[');
          for (int k = 0; k < l.size(); k++) {
            sb.append(k > 0 ? ", " : "").append(l.get(k));
          }
          sb.append(']');
          return;
        }
        sb.append("[\n");
        for (int k = 0; k < l.size(); k++) {
          pad(sb, indent + 1);
          write(sb, l.get(k), indent + 1);
          sb.append(k + 1 < l.size() ? ",\n" : "\n");
        }
        pad(sb, indent);
        sb.append(']');
      }
      default -> string(sb, v.toString());
    }
  }

  private static void pad(StringBuilder sb, int indent) {
    sb.append("  ".repeat(indent));
  }

  private static void string(StringBuilder sb, String s) {
    sb.append('"');
    for (int i = 0; i < s.length(); i++) {
      char c = s.charAt(i);
      switch (c) {
        case '"' -> sb.append("\\\"");
        case '\\' -> sb.append("\\\\");
        case '\n' -> sb.append("\\n");
        case '\r' -> sb.append("\\r");
        case '\t' -> sb.append("\\t");
        default -> {
          if (c < 0x20) {
            sb.append(String.format("\\u%04x", (int) c));
          } else {
            sb.append(c);
          }
        }
      }
    }
    sb.append('"');
  }
}
