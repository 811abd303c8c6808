package dev.kernelgen.eval;

/**
 * The environment compiled nodes run against: slots for integer and boolean variables, for
 * floating-point variables, and for buffers. A GPU thread that runs with others of its block gets
 * its own copy, with its thread indices and the block it belongs to.
 */
final class Frame {
  final long[] ints;
  final double[] doubles;
  final Mem[] mems;

  /** The block this frame's thread runs in; null outside a block of concurrent threads. */
  BlockContext block;

  /** This thread's index per thread tag of {@link #block}. */
  long[] threadIdx;

  Frame(int ints, int doubles, int mems) {
    this.ints = new long[ints];
    this.doubles = new double[doubles];
    this.mems = new Mem[mems];
  }

  private Frame(Frame o) {
    this.ints = o.ints.clone();
    this.doubles = o.doubles.clone();
    this.mems = o.mems.clone();
    this.block = o.block;
    this.threadIdx = o.threadIdx;
  }

  Frame copy() {
    return new Frame(this);
  }
}
