package dev.kernelgen.tir;

/** How a loop runs. */
public enum ForKind {
  SERIAL("for"),
  PARALLEL("parallel"),
  VECTORIZED("vectorized"),
  UNROLLED("unrolled"),
  /** Bound to a GPU thread index (blockIdx.x, threadIdx.y, ...): the loop is the grid. */
  THREAD_BINDING("launch"),
  /** A virtual thread: interleaved into the body by the virtual-thread pass. */
  VTHREAD("vthread");

  private final String keyword;

  ForKind(String keyword) {
    this.keyword = keyword;
  }

  public String keyword() {
    return keyword;
  }
}
