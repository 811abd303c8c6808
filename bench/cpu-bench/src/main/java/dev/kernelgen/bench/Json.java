package dev.kernelgen.bench;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * A minimal JSON reader and writer, enough for workload files and result files; the build has no
 * JSON library and this module should not bring one.
 *
 * <p>Values map to Java as: object to {@code Map<String, Object>} (insertion-ordered), array to
 * {@code List<Object>}, string to {@code String}, number to {@code Double} (or {@code Long} when
 * written without fraction or exponent), {@code true}/{@code false} to {@code Boolean}, {@code
 * null} to {@code null}.
 */
public final class Json {
  private final String text;
  private int pos;

  private Json(String text) {
    this.text = text;
  }

  /** Parses one JSON value that spans the whole text. */
  public static Object parse(String text) {
    Json p = new Json(text);
    p.skipSpace();
    Object value = p.value();
    p.skipSpace();
    if (p.pos != text.length()) {
      throw p.error("trailing characters after the value");
    }
    return value;
  }

  /** Writes a value built of maps, lists, strings, numbers, booleans and nulls, indented. */
  public static String write(Object value) {
    StringBuilder out = new StringBuilder();
    write(value, out, 0);
    return out.append('\n').toString();
  }

  private Object value() {
    if (pos >= text.length()) {
      throw error("unexpected end of input");
    }
    char ch = text.charAt(pos);
    return switch (ch) {
      case '{' -> object();
      case '[' -> array();
      case '"' -> string();
      case 't' -> literal("true", Boolean.TRUE);
      case 'f' -> literal("false", Boolean.FALSE);
      case 'n' -> literal("null", null);
      default -> {
        if (ch == '-' || (ch >= '0' && ch <= '9')) {
          yield number();
        }
        throw error("unexpected character '" + ch + "'");
      }
    };
  }

  private Map<String, Object> object() {
    Map<String, Object> map = new LinkedHashMap<>();
    pos++; // '{'
    skipSpace();
    if (peek() == '}') {
      pos++;
      return map;
    }
    while (true) {
      skipSpace();
      if (peek() != '"') {
        throw error("expected a string key");
      }
      String key = string();
      skipSpace();
      expect(':');
      skipSpace();
      map.put(key, value());
      skipSpace();
      char ch = next();
      if (ch == '}') {
        return map;
      }
      if (ch != ',') {
        pos--;
        throw error("expected ',' or '}' in object");
      }
    }
  }

  private List<Object> array() {
    List<Object> list = new ArrayList<>();
    pos++; // '['
    skipSpace();
    if (peek() == ']') {
      pos++;
      return list;
    }
    while (true) {
      skipSpace();
      list.add(value());
      skipSpace();
      char ch = next();
      if (ch == ']') {
        return list;
      }
      if (ch != ',') {
        pos--;
        throw error("expected ',' or ']' in array");
      }
    }
  }

  private String string() {
    pos++; // '"'
    StringBuilder sb = new StringBuilder();
    while (true) {
      char ch = next();
      if (ch == '"') {
        return sb.toString();
      }
      if (ch == '\\') {
        char esc = next();
        switch (esc) {
          case '"', '\\', '/' -> sb.append(esc);
          case 'b' -> sb.append('\b');
          case 'f' -> sb.append('\f');
          case 'n' -> sb.append('\n');
          case 'r' -> sb.append('\r');
          case 't' -> sb.append('\t');
          case 'u' -> {
            if (pos + 4 > text.length()) {
              throw error("truncated \\u escape");
            }
            sb.append((char) Integer.parseInt(text.substring(pos, pos + 4), 16));
            pos += 4;
          }
          default -> throw error("bad escape '\\" + esc + "'");
        }
      } else if (ch < 0x20) {
        throw error("control character in string");
      } else {
        sb.append(ch);
      }
    }
  }

  private Object number() {
    int start = pos;
    boolean integral = true;
    while (pos < text.length()) {
      char ch = text.charAt(pos);
      if (ch == '.' || ch == 'e' || ch == 'E') {
        integral = false;
      } else if (!(ch == '-' || ch == '+' || (ch >= '0' && ch <= '9'))) {
        break;
      }
      pos++;
    }
    String s = text.substring(start, pos);
    try {
      return integral ? (Object) Long.parseLong(s) : (Object) Double.parseDouble(s);
    } catch (NumberFormatException e) {
      pos = start;
      throw error("bad number '" + s + "'");
    }
  }

  private Object literal(String word, Object value) {
    if (!text.startsWith(word, pos)) {
      throw error("expected '" + word + "'");
    }
    pos += word.length();
    return value;
  }

  private void skipSpace() {
    while (pos < text.length() && Character.isWhitespace(text.charAt(pos))) {
      pos++;
    }
  }

  private char peek() {
    if (pos >= text.length()) {
      throw error("unexpected end of input");
    }
    return text.charAt(pos);
  }

  private char next() {
    char ch = peek();
    pos++;
    return ch;
  }

  private void expect(char ch) {
    if (next() != ch) {
      pos--;
      throw error("expected '" + ch + "'");
    }
  }

  private IllegalArgumentException error(String what) {
    int line = 1;
    int col = 1;
    for (int i = 0; i < Math.min(pos, text.length()); i++) {
      if (text.charAt(i) == '\n') {
        line++;
        col = 1;
      } else {
        col++;
      }
    }
    return new IllegalArgumentException("JSON: " + what + " at line " + line + ", column " + col);
  }

  private static void write(Object value, StringBuilder out, int indent) {
    switch (value) {
      case null -> out.append("null");
      case String s -> quote(s, out);
      case Boolean b -> out.append(b);
      case Double d -> writeDouble(d, out);
      case Float f -> writeDouble(f, out);
      case Number num -> out.append(num.longValue());
      case Map<?, ?> map -> {
        if (map.isEmpty()) {
          out.append("{}");
          return;
        }
        out.append("{");
        String sep = "\n";
        for (Map.Entry<?, ?> e : map.entrySet()) {
          out.append(sep);
          pad(out, indent + 1);
          quote(String.valueOf(e.getKey()), out);
          out.append(": ");
          write(e.getValue(), out, indent + 1);
          sep = ",\n";
        }
        out.append('\n');
        pad(out, indent);
        out.append('}');
      }
      case List<?> list -> {
        if (list.isEmpty()) {
          out.append("[]");
          return;
        }
        out.append("[");
        String sep = "\n";
        for (Object item : list) {
          out.append(sep);
          pad(out, indent + 1);
          write(item, out, indent + 1);
          sep = ",\n";
        }
        out.append('\n');
        pad(out, indent);
        out.append(']');
      }
      default ->
          throw new IllegalArgumentException(
              "cannot write " + value.getClass().getName() + " as JSON");
    }
  }

  private static void writeDouble(double d, StringBuilder out) {
    // JSON has no NaN or infinity; a failed measurement is null, never a fake number.
    if (Double.isNaN(d) || Double.isInfinite(d)) {
      out.append("null");
    } else if (d == Math.rint(d) && Math.abs(d) < 1e15) {
      out.append((long) d);
    } else {
      out.append(d);
    }
  }

  private static void pad(StringBuilder out, int indent) {
    out.append("  ".repeat(indent));
  }

  private static void quote(String s, StringBuilder out) {
    out.append('"');
    for (int i = 0; i < s.length(); i++) {
      char ch = s.charAt(i);
      switch (ch) {
        case '"' -> out.append("\\\"");
        case '\\' -> out.append("\\\\");
        case '\n' -> out.append("\\n");
        case '\r' -> out.append("\\r");
        case '\t' -> out.append("\\t");
        default -> {
          if (ch < 0x20) {
            out.append(String.format("\\u%04x", (int) ch));
          } else {
            out.append(ch);
          }
        }
      }
    }
    out.append('"');
  }
}
