package dev.kernelgen.tune;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * One-line JSON for the tuning log, written and read by hand to keep the compiler free of
 * dependencies. Reading gives maps, lists, strings, doubles (every number), booleans and null, and
 * throws {@link IllegalArgumentException} on anything malformed.
 */
final class JsonLine {
  private final String s;
  private int at;

  private JsonLine(String s) {
    this.s = s;
  }

  static Object parse(String text) {
    JsonLine p = new JsonLine(text);
    Object v = p.value();
    p.space();
    if (p.at != text.length()) {
      throw p.error("trailing characters");
    }
    return v;
  }

  static String write(Object v) {
    StringBuilder sb = new StringBuilder();
    write(sb, v);
    return sb.toString();
  }

  private static void write(StringBuilder sb, Object v) {
    switch (v) {
      case null -> sb.append("null");
      case String str -> string(sb, str);
      case Double d when d.isNaN() || d.isInfinite() -> sb.append("null");
      case Number n -> sb.append(n);
      case Boolean b -> sb.append(b);
      case Map<?, ?> m -> {
        sb.append('{');
        int k = 0;
        for (var e : m.entrySet()) {
          sb.append(k++ > 0 ? "," : "");
          string(sb, String.valueOf(e.getKey()));
          sb.append(':');
          write(sb, e.getValue());
        }
        sb.append('}');
      }
      case List<?> l -> {
        sb.append('[');
        for (int k = 0; k < l.size(); k++) {
          sb.append(k > 0 ? "," : "");
          write(sb, l.get(k));
        }
        sb.append(']');
      }
      default -> string(sb, v.toString());
    }
  }

  private static void string(StringBuilder sb, String str) {
    sb.append('"');
    for (int i = 0; i < str.length(); i++) {
      char c = str.charAt(i);
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

  private IllegalArgumentException error(String what) {
    return new IllegalArgumentException(what + " at column " + (at + 1));
  }

  private void space() {
    while (at < s.length() && Character.isWhitespace(s.charAt(at))) {
      at++;
    }
  }

  private Object value() {
    space();
    if (at >= s.length()) {
      throw error("unexpected end");
    }
    char c = s.charAt(at);
    switch (c) {
      case '{' -> {
        at++;
        Map<String, Object> m = new LinkedHashMap<>();
        space();
        if (peek('}')) {
          return m;
        }
        do {
          space();
          if (at >= s.length() || s.charAt(at) != '"') {
            throw error("expected a member name");
          }
          String k = string();
          space();
          expect(':');
          m.put(k, value());
          space();
        } while (peek(','));
        expect('}');
        return m;
      }
      case '[' -> {
        at++;
        List<Object> l = new ArrayList<>();
        space();
        if (peek(']')) {
          return l;
        }
        do {
          l.add(value());
          space();
        } while (peek(','));
        expect(']');
        return l;
      }
      case '"' -> {
        return string();
      }
      default -> {
        if (s.startsWith("true", at)) {
          at += 4;
          return true;
        }
        if (s.startsWith("false", at)) {
          at += 5;
          return false;
        }
        if (s.startsWith("null", at)) {
          at += 4;
          return null;
        }
        int start = at;
        while (at < s.length() && "+-0123456789.eE".indexOf(s.charAt(at)) >= 0) {
          at++;
        }
        if (start == at) {
          throw error("unexpected '" + c + "'");
        }
        try {
          return Double.parseDouble(s.substring(start, at));
        } catch (NumberFormatException e) {
          throw error("bad number");
        }
      }
    }
  }

  private boolean peek(char c) {
    if (at < s.length() && s.charAt(at) == c) {
      at++;
      return true;
    }
    return false;
  }

  private void expect(char c) {
    if (!peek(c)) {
      throw error("expected '" + c + "'");
    }
  }

  private String string() {
    at++;
    StringBuilder sb = new StringBuilder();
    while (true) {
      if (at >= s.length()) {
        throw error("unterminated string");
      }
      char c = s.charAt(at++);
      if (c == '"') {
        return sb.toString();
      }
      if (c != '\\') {
        sb.append(c);
        continue;
      }
      if (at >= s.length()) {
        throw error("unterminated escape");
      }
      char e = s.charAt(at++);
      switch (e) {
        case 'n' -> sb.append('\n');
        case 'r' -> sb.append('\r');
        case 't' -> sb.append('\t');
        case 'b' -> sb.append('\b');
        case 'f' -> sb.append('\f');
        case 'u' -> {
          if (at + 4 > s.length()) {
            throw error("bad \\u escape");
          }
          sb.append((char) Integer.parseInt(s.substring(at, at + 4), 16));
          at += 4;
        }
        default -> sb.append(e);
      }
    }
  }
}
