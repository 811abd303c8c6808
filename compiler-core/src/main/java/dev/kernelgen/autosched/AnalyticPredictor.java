package dev.kernelgen.autosched;

import dev.kernelgen.annotations.Target;

/**
 * A hand-written cost model over the notes of the sketch rules, good enough to rank tile sizes
 * without measuring: on the CPU, register tiles that fill but do not spill the 32 vector registers
 * of AVX-512 (a multiply-add per load or better), enough parallel tasks for the cores, little
 * padding waste in ragged tiles; on a GPU, 128 to 512 threads per block, at least two blocks per
 * SM, a register tile of 4 to 32 per thread and shared staging of reused inputs. It assumes fixed
 * machines (8 cores; 132 SMs), so that the pick does not depend on the build host.
 */
public final class AnalyticPredictor implements Predictor {
  static final int CORES = 8;
  static final int SMS = 132;

  @Override
  public double cost(Candidate c) {
    return c.target() == Target.CUDA || c.target() == Target.OPENCL ? gpu(c) : cpu(c);
  }

  private static double cpu(Candidate c) {
    double cost = 1;
    double intensity = c.note("cpu.intensity", -1);
    if (intensity >= 0) {
      cost /= Math.min(intensity, 4) / 4;
      double reg = c.note("cpu.reg_tile", 1);
      // 32 vector registers of 16 floats, some kept for the loads.
      if (reg > 384) {
        cost *= (reg / 384) * (reg / 384);
      }
      double inner = c.note("cpu.inner_tile", 1);
      cost /= Math.min(inner, 16) / 16;
      cost *= c.note("cpu.waste", 1);
      cost /= Math.min(1, c.note("cpu.tasks", 1) / (2.0 * CORES));
    }
    return cost;
  }

  private static double gpu(Candidate c) {
    double cost = 1;
    double threads = c.note("gpu.threads", c.note("threads", 256));
    if (threads < 128) {
      cost *= 128 / threads;
    } else if (threads > 512) {
      cost *= threads / 512;
    }
    if (c.notes().containsKey("gpu.blocks")) {
      double blocks = c.note("gpu.blocks", 1);
      cost /= Math.min(1, blocks / (2.0 * SMS));
      double reg = c.note("gpu.reg_tile", 1);
      if (reg < 4) {
        cost *= 4 / reg;
      } else if (reg > 32) {
        cost *= reg / 32;
      }
      if (c.note("gpu.reused", 0) > 0 && c.note("gpu.shared", 0) == 0) {
        cost *= 2;
      }
      double tk = c.note("gpu.tile_k", 8);
      if (tk < 8) {
        cost *= 8 / tk;
      }
    }
    return cost;
  }
}
