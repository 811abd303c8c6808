package dev.kernelgen.eval;

/** A compiled loop-IR statement. */
abstract class StmtNode {
  abstract void exec(Frame f);
}
