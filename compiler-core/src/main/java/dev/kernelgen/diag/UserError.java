package dev.kernelgen.diag;

/**
 * A problem in what the user wrote: a spec that makes no sense, a schedule that is not legal, a
 * missing toolchain. The message names the tensor, the axis and what is wrong.
 */
public final class UserError extends RuntimeException {
  public UserError(String message) {
    super(message);
  }

  public UserError(String message, Throwable cause) {
    super(message, cause);
  }

  /** Throws a {@link UserError} with the formatted message unless {@code condition} holds. */
  public static void check(boolean condition, String format, Object... args) {
    if (!condition) {
      throw new UserError(String.format(format, args));
    }
  }
}
