package dev.kernelgen.codegen;

import dev.kernelgen.diag.CompilerBug;
import dev.kernelgen.diag.UserError;
import java.util.HashSet;
import java.util.IdentityHashMap;
import java.util.Map;
import java.util.Set;

/**
 * The identifiers of one generated function. IR names may contain dots ({@code i.outer}) and two
 * distinct variables may share a name, so every binding gets a fresh identifier: unique within the
 * function, which also keeps Java from rejecting shadowed locals in lambdas. Identifiers are
 * assigned in traversal order, so output is deterministic.
 */
final class Names {
  /**
   * Keywords and library names of all four targets (C, C++ for CUDA, Java, OpenCL C): one set, so
   * that a variable gets the same identifier on every target.
   */
  static final Set<String> RESERVED =
      Set.of(
          // C
          "auto",
          "break",
          "case",
          "char",
          "const",
          "continue",
          "default",
          "do",
          "double",
          "else",
          "enum",
          "extern",
          "float",
          "for",
          "goto",
          "if",
          "inline",
          "int",
          "long",
          "register",
          "restrict",
          "return",
          "short",
          "signed",
          "sizeof",
          "static",
          "struct",
          "switch",
          "typedef",
          "union",
          "unsigned",
          "void",
          "volatile",
          "while",
          "bool",
          "true",
          "false",
          "NULL",
          "main",
          // C++ (CUDA)
          "and",
          "or",
          "not",
          "xor",
          "class",
          "namespace",
          "new",
          "delete",
          "template",
          "this",
          "typename",
          "using",
          "virtual",
          "operator",
          "private",
          "public",
          "protected",
          "friend",
          "try",
          "catch",
          "throw",
          "explicit",
          "mutable",
          "export",
          "nullptr",
          "decltype",
          "constexpr",
          "alignas",
          "alignof",
          "noexcept",
          "asm",
          "concept",
          "requires",
          "typeid",
          "bitand",
          "bitor",
          "compl",
          "not_eq",
          "or_eq",
          "xor_eq",
          "and_eq",
          "static_cast",
          "const_cast",
          "dynamic_cast",
          "reinterpret_cast",
          "thread_local",
          "wchar_t",
          // Java
          "abstract",
          "assert",
          "boolean",
          "byte",
          "extends",
          "final",
          "finally",
          "implements",
          "import",
          "instanceof",
          "interface",
          "native",
          "package",
          "super",
          "synchronized",
          "throws",
          "transient",
          "strictfp",
          "var",
          "record",
          "yield",
          "sealed",
          "permits",
          "_",
          "null",
          // OpenCL C
          "kernel",
          "global",
          "local",
          "constant",
          "read_only",
          "write_only",
          "read_write",
          "half",
          "uchar",
          "ushort",
          "uint",
          "ulong",
          "size_t",
          "ptrdiff_t",
          "intptr_t",
          "uintptr_t",
          "image2d_t",
          "image3d_t",
          "sampler_t",
          "event_t",
          // names the generated code refers to
          "threadIdx",
          "blockIdx",
          "blockDim",
          "gridDim",
          "warpSize",
          "min",
          "max",
          "fmin",
          "fmax",
          "fminf",
          "fmaxf",
          "exp",
          "expf",
          "log",
          "logf",
          "sqrt",
          "sqrtf",
          "tanh",
          "tanhf",
          "pow",
          "powf",
          "fabs",
          "fabsf",
          "floor",
          "floorf",
          "ceil",
          "ceilf",
          "abs",
          "INFINITY",
          "NAN",
          "malloc",
          "free",
          "aligned_alloc",
          "abort",
          "get_group_id",
          "get_local_id",
          "barrier",
          "int32_t",
          "int64_t",
          "Math",
          "IntStream",
          "LongStream",
          "MemorySegment",
          "ValueLayout",
          "JAVA_FLOAT",
          "JAVA_DOUBLE",
          "JAVA_INT",
          "JAVA_LONG",
          "JAVA_BOOLEAN",
          "Float",
          "Double",
          "Integer",
          "Long",
          "String",
          "Object",
          "System");

  private final Map<Object, String> bound = new IdentityHashMap<>();
  private final Set<String> used = new HashSet<>();

  /** An identifier derived from an IR name: letters, digits and '_', not a reserved word. */
  static String sanitize(String irName) {
    StringBuilder b = new StringBuilder();
    for (char c : irName.toCharArray()) {
      boolean ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
      b.append(ok || c == '_' ? c : '_');
    }
    // Leading digits are not identifiers; a leading '_' may collide with reserved C names, and
    // 'kg_' is the prefix of the generated helpers.
    if (b.isEmpty()
        || Character.isDigit(b.charAt(0))
        || b.charAt(0) == '_'
        || b.toString().startsWith("kg_")) {
      b.insert(0, 'v');
    }
    String s = b.toString();
    return RESERVED.contains(s) ? s + "_" : s;
  }

  /** Checks that a function or class name can be used as is on every target. */
  static void checkSymbol(String what, String name) {
    UserError.check(
        name.matches("[A-Za-z][A-Za-z0-9_]*")
            && !RESERVED.contains(name)
            && !name.startsWith("kg_"),
        "%s name '%s' cannot be used in generated code: use letters, digits and '_', starting"
            + " with a letter, not a keyword of C, CUDA, OpenCL or Java, and not starting with"
            + " 'kg_'",
        what,
        name);
  }

  /** A fresh identifier based on {@code irName}, bound to nothing. */
  String fresh(String irName) {
    String base = sanitize(irName);
    String n = base;
    for (int k = 1; used.contains(n); k++) {
      n = base + "_" + k;
    }
    used.add(n);
    return n;
  }

  /** Binds {@code key} (a Var or a Buffer) to a fresh identifier; returns it. */
  String bind(Object key, String irName) {
    String n = fresh(irName);
    bound.put(key, n);
    return n;
  }

  /** The identifier bound to {@code key} now, or null. */
  String current(Object key) {
    return bound.get(key);
  }

  /** Restores the binding that {@code key} had before a scope: {@code previous} may be null. */
  void restore(Object key, String previous) {
    if (previous == null) {
      bound.remove(key);
    } else {
      bound.put(key, previous);
    }
  }

  /** The identifier of a bound variable or buffer. */
  String of(Object key, String funcName) {
    String n = bound.get(key);
    if (n == null) {
      throw new CompilerBug(
          "'" + key + "' is used in function " + funcName + " outside of the scope that binds it");
    }
    return n;
  }
}
