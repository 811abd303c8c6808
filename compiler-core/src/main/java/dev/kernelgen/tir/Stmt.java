package dev.kernelgen.tir;

/** A statement of the loop IR. The permits list is the node list that every backend handles. */
public sealed interface Stmt
    permits For,
        LetStmt,
        IfThenElse,
        Seq,
        Store,
        Allocate,
        Evaluate,
        Barrier,
        ProducerRealize,
        ProducerStore {

  /** The statement as text, in the printer's syntax. */
  default String show() {
    return IRPrinter.print(this);
  }
}
