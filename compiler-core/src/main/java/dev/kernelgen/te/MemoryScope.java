package dev.kernelgen.te;

import dev.kernelgen.diag.UserError;

/** Where a buffer lives: device (or host) global memory, a block's shared memory, registers. */
public enum MemoryScope {
  GLOBAL("global"),
  SHARED("shared"),
  LOCAL("local");

  private final String text;

  MemoryScope(String text) {
    this.text = text;
  }

  public static MemoryScope parse(String s) {
    for (MemoryScope m : values()) {
      if (m.text.equals(s)) {
        return m;
      }
    }
    throw new UserError("unknown memory scope '" + s + "' (known: global, shared, local)");
  }

  @Override
  public String toString() {
    return text;
  }
}
