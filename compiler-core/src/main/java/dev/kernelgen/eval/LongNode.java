package dev.kernelgen.eval;

/**
 * A compiled integer or boolean expression (booleans as 0 or 1). An abstract class rather than an
 * interface: calls through it are virtual, not interface, calls, which are cheaper when
 * megamorphic.
 */
abstract class LongNode {
  abstract long eval(Frame f);

  /** A constant. */
  static final class Const extends LongNode {
    final long value;

    Const(long value) {
      this.value = value;
    }

    @Override
    long eval(Frame f) {
      return value;
    }
  }

  /** A variable held in slot {@code slot} of the frame's integer slots. */
  static final class Slot extends LongNode {
    final int slot;

    Slot(int slot) {
      this.slot = slot;
    }

    @Override
    long eval(Frame f) {
      return f.ints[slot];
    }
  }
}
