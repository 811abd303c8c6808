package dev.kernelgen.eval;

/** A compiled condition. */
abstract class BoolNode {
  abstract boolean eval(Frame f);

  /** A constant. */
  static final class Const extends BoolNode {
    final boolean value;

    Const(boolean value) {
      this.value = value;
    }

    @Override
    boolean eval(Frame f) {
      return value;
    }
  }
}
