package dev.kernelgen.runtime;

import java.util.Arrays;

/**
 * Launch geometry: the grid in blocks and the block in threads, both three-dimensional as in CUDA,
 * and the bytes of dynamic shared memory. OpenCL's global size is {@code grid * block} per
 * dimension and its local size is {@code block}. C and Java kernels loop over their whole domain
 * themselves and ignore the geometry.
 */
public record LaunchConfig(int[] grid, int[] block, int sharedMemoryBytes) {

  /** The geometry of one call of a host kernel. */
  public static final LaunchConfig HOST =
      new LaunchConfig(new int[] {1, 1, 1}, new int[] {1, 1, 1}, 0);

  public LaunchConfig {
    grid = check("grid", grid);
    block = check("block", block);
    if (sharedMemoryBytes < 0) {
      throw new IllegalArgumentException("negative shared memory: " + sharedMemoryBytes);
    }
  }

  /** A one-dimensional launch without dynamic shared memory. */
  public static LaunchConfig of(int gridX, int blockX) {
    return new LaunchConfig(new int[] {gridX, 1, 1}, new int[] {blockX, 1, 1}, 0);
  }

  @Override
  public int[] grid() {
    return grid.clone();
  }

  @Override
  public int[] block() {
    return block.clone();
  }

  public int gridDim(int axis) {
    return grid[axis];
  }

  public int blockDim(int axis) {
    return block[axis];
  }

  public long threadsPerBlock() {
    return (long) block[0] * block[1] * block[2];
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof LaunchConfig c
        && Arrays.equals(grid, c.grid)
        && Arrays.equals(block, c.block)
        && sharedMemoryBytes == c.sharedMemoryBytes;
  }

  @Override
  public int hashCode() {
    return 31 * (31 * Arrays.hashCode(grid) + Arrays.hashCode(block)) + sharedMemoryBytes;
  }

  @Override
  public String toString() {
    return "grid "
        + Arrays.toString(grid)
        + " block "
        + Arrays.toString(block)
        + (sharedMemoryBytes > 0 ? " shared " + sharedMemoryBytes + " B" : "");
  }

  private static int[] check(String what, int[] dims) {
    if (dims.length != 3) {
      throw new IllegalArgumentException(
          what + " needs 3 dimensions, got " + Arrays.toString(dims));
    }
    for (int d : dims) {
      if (d < 1) {
        throw new IllegalArgumentException(
            what + " dimensions must be positive: " + Arrays.toString(dims));
      }
    }
    return dims.clone();
  }
}
