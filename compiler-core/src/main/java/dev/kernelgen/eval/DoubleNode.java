package dev.kernelgen.eval;

/** A compiled floating-point expression; float32 values are doubles that are exact floats. */
abstract class DoubleNode {
  abstract double eval(Frame f);

  /** A constant. */
  static final class Const extends DoubleNode {
    final double value;

    Const(double value) {
      this.value = value;
    }

    @Override
    double eval(Frame f) {
      return value;
    }
  }

  /** A variable held in slot {@code slot} of the frame's floating-point slots. */
  static final class Slot extends DoubleNode {
    final int slot;

    Slot(int slot) {
      this.slot = slot;
    }

    @Override
    double eval(Frame f) {
      return f.doubles[slot];
    }
  }
}
