package dev.kernelgen.driver;

import dev.kernelgen.diag.UserError;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Supplier;

/**
 * The user errors of one build, collected per operator and per library so that a spec with three
 * mistakes fails one build with all three, each naming its spec method.
 */
final class UserErrors {
  private final List<String> messages = new ArrayList<>();

  /**
   * {@code body}'s value, or null when it threw a {@link UserError}: then the error is recorded,
   * prefixed with {@code where} unless its message already names it, or already names a place in
   * the same spec file ({@code Spec.java: it.Spec.cpu(): ...} from a schedule method, where {@code
   * where} is the operator's {@code Spec.java: it.Spec.total()}).
   */
  <T> T collect(String where, Supplier<T> body) {
    try {
      return body.get();
    } catch (UserError e) {
      String m = e.getMessage();
      int colon = where.indexOf(": ");
      boolean named =
          m.contains(where) || (colon > 0 && m.startsWith(where.substring(0, colon + 2)));
      messages.add(named ? m : where + ": " + m);
      return null;
    }
  }

  void add(String message) {
    messages.add(message);
  }

  int size() {
    return messages.size();
  }

  /** Throws one {@link UserError} listing every error collected, if any. */
  void throwIfAny() {
    if (messages.size() == 1) {
      throw new UserError(messages.get(0));
    }
    if (!messages.isEmpty()) {
      StringBuilder sb = new StringBuilder();
      sb.append(messages.size()).append(" errors in the kernel specs:");
      for (int k = 0; k < messages.size(); k++) {
        sb.append("\n").append(k + 1).append(". ");
        sb.append(messages.get(k).replace("\n", "\n   "));
      }
      throw new UserError(sb.toString());
    }
  }
}
