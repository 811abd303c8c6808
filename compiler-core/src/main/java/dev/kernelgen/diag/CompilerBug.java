package dev.kernelgen.diag;

/** An invariant of the compiler itself was broken: a bug in kernelgen, not in the user's spec. */
public final class CompilerBug extends RuntimeException {
  public CompilerBug(String message) {
    super("kernelgen internal error: " + message);
  }

  /** Throws a {@link CompilerBug} with the formatted message unless {@code condition} holds. */
  public static void check(boolean condition, String format, Object... args) {
    if (!condition) {
      throw new CompilerBug(String.format(format, args));
    }
  }
}
