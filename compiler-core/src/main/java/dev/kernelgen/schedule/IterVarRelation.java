package dev.kernelgen.schedule;

/** How a schedule derived iteration variables from others: recorded as data, lowered later. */
public sealed interface IterVarRelation permits IterVarRelation.Split, IterVarRelation.Fuse {

  /**
   * {@code parent = outer * factor + inner}. Exactly one of {@code factor} and {@code nparts} is
   * set (non-zero): a split by nparts has {@code outer}'s extent fixed instead.
   */
  record Split(
      dev.kernelgen.te.IterVar parent,
      dev.kernelgen.te.IterVar outer,
      dev.kernelgen.te.IterVar inner,
      long factor,
      long nparts)
      implements IterVarRelation {}

  /** {@code fused = outer * extent(inner) + inner}. */
  record Fuse(
      dev.kernelgen.te.IterVar outer,
      dev.kernelgen.te.IterVar inner,
      dev.kernelgen.te.IterVar fused)
      implements IterVarRelation {}
}
