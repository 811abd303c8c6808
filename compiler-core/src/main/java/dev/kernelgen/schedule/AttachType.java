package dev.kernelgen.schedule;

/** Where a stage's loop nest goes. */
public enum AttachType {
  /** Its own loop nest at the top of the function. */
  ROOT,
  /** Substituted into its consumers: no loop nest, no storage. */
  INLINE,
  /** Nested inside a loop of another stage (compute_at). */
  SCOPE
}
