package dev.kernelgen.autosched;

/**
 * The vector unit a C schedule is generated for: the floats a vector register holds and the vector
 * registers there are. Tiles are sized by it (a register tile's accumulators fill the registers
 * without spilling them; an innermost tile is whole vectors), so the untuned pick of one operator
 * differs by ISA level: each level's library gets the pick for its own unit.
 *
 * @param lanes the 32-bit floats of one vector register
 * @param registers the vector registers the ISA names
 */
public record VectorUnit(int lanes, int registers) {
  /** AVX-512 (x86-64-v4): 16 floats in each of 32 registers; the default, as before levels. */
  public static final VectorUnit AVX512 = new VectorUnit(16, 32);

  /** AVX2 with FMA (x86-64-v3): 8 floats in each of 16 registers. */
  public static final VectorUnit AVX2 = new VectorUnit(8, 16);

  /**
   * The registers a register tile's accumulators may take: the others hold an operand's vector, a
   * broadcast and a product (measured on AVX-512: beyond 28 accumulators the tile spills).
   */
  static final int OPERAND_REGISTERS = 4;

  public VectorUnit {
    if (lanes < 1 || registers <= OPERAND_REGISTERS) {
      throw new IllegalArgumentException(
          "a vector unit needs at least one lane and more than "
              + OPERAND_REGISTERS
              + " registers, not "
              + lanes
              + " and "
              + registers);
    }
  }

  /**
   * The unit a {@code -march} level's pick is ranked for: {@link #AVX2} for {@code x86-64-v3}, and
   * for {@code x86-64-v2} and {@code x86-64} too (16 registers, as AVX2's; ranked for SSE's 4
   * lanes, the model, calibrated on wider vectors, chose narrow tiles that ran 0.29-0.72x the
   * AVX-512 pick at v2 on six of 22 operators, where AVX2's ranking ran 1.19x in geometric mean:
   * {@code bench/results/cpu-2026-12-07-e}); {@link #AVX2} for the Arm levels too ({@code armv8-a}
   * and later: Neon's 32 registers of 4 floats hold what AVX2's 16 of 8 do, and SSE's 4 lanes
   * ranked worse than AVX2's unit; checked under emulation, not timed on an Arm CPU); {@link
   * #AVX512} for {@code x86-64-v4} and any other level ({@code native}, which the driver resolves
   * first).
   */
  public static VectorUnit ofIsaLevel(String level) {
    if (dev.kernelgen.codegen.NativeToolchain.isAarch64Level(level)) {
      return AVX2;
    }
    return switch (level) {
      case "x86-64-v3", "x86-64-v2", "x86-64" -> AVX2;
      default -> AVX512;
    };
  }

  /** {@code 8 lanes x 16 registers}: what a build log says a pick was sized for. */
  @Override
  public String toString() {
    return lanes + " lanes x " + registers + " registers";
  }

  /**
   * The L2 cache a core of this unit's ISA level has, about: 1 MiB with 16 lanes (every AVX-512
   * core from Skylake-SP on, Zen 4 and Zen 5: 1 to 2 MiB), 256 KiB with fewer (AVX2-only cores: 256
   * KiB from Haswell to Skylake's client cores, 512 KiB on Zen 2 and Zen 3). A packed panel that
   * fits it is streamed from L2 for each tile of rows (at [1,512,7,7] x 512 a 576 KiB panel of 32
   * output channels ran 1.2x faster than one of 16 at 288 KiB, 2-core Zen 5).
   */
  public double l2Bytes() {
    return lanes >= 16 ? 1 << 20 : 256 << 10;
  }

  /** The registers a register tile's accumulators may take. */
  public int accumulatorRegisters() {
    return registers - OPERAND_REGISTERS;
  }
}
