package dev.kernelgen.codegen;

/**
 * The C kernels' floor division and modulo by a value read from memory (a tensor's value, which may
 * be 0 whatever the shapes): C's division by zero, and {@code INT_MIN / -1}, raise SIGFPE, which
 * kills the JVM. A zero divisor sets the function's status to -1 (the runtime throws, naming the
 * kernel) and gives 0; -1 divides by negation, wrapping as two's complement. Divisors that are
 * constants or dims (positive, checked at launch) keep the plain helpers. GPU kernels check the
 * same way, into their status word ({@link #gpuDefinition}).
 */
final class CheckedDivision {
  private CheckedDivision() {}

  /**
   * The definition of {@code name}, a checked version of the helper call {@code plain} (over
   * parameters {@code a} and {@code b}) for the C integer type {@code ty}: a C function's status
   * becomes -1.
   */
  static String definition(String name, String ty, boolean division, String plain) {
    return definition(
        name,
        "static inline",
        ty,
        "u" + ty,
        "int64_t*",
        "__atomic_store_n(status, -1, __ATOMIC_RELAXED)",
        division,
        plain);
  }

  /**
   * A GPU kernel's check ({@link KernelStatus}): the same, with the helper's {@code qualifiers},
   * the status a pointer of type {@code statusPointer} set to {@value KernelStatus#DIVISION}.
   */
  static String gpuDefinition(
      String name,
      String qualifiers,
      String ty,
      String statusPointer,
      boolean division,
      String plain) {
    return definition(
        name,
        qualifiers,
        ty,
        "unsigned " + ty,
        statusPointer,
        "*status = " + KernelStatus.DIVISION,
        division,
        plain);
  }

  private static String definition(
      String name,
      String qualifiers,
      String ty,
      String unsignedTy,
      String statusPointer,
      String setStatus,
      boolean division,
      String plain) {
    String byMinusOne = division ? "(" + ty + ") (0u - (" + unsignedTy + ") a)" : "0";
    return ("%5$s %1$s %2$s(%1$s a, %1$s b, %6$s status) {\n"
            + "  if (b == 0) {\n"
            + "    %7$s;\n"
            + "    return 0;\n"
            + "  }\n"
            + "  return b == -1 ? %3$s : %4$s;\n"
            + "}\n")
        .formatted(ty, name, byMinusOne, plain, qualifiers, statusPointer, setStatus);
  }
}
