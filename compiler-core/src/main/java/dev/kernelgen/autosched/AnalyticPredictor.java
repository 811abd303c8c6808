package dev.kernelgen.autosched;

import dev.kernelgen.annotations.Target;
import dev.kernelgen.schedule.ThreadTag;
import java.util.Map;

/**
 * A hand-written cost model over the notes of the sketch rules, good enough to rank tile sizes
 * without measuring. The cost is the sum over stages of the stage's work (multiply-adds) times its
 * estimated time per unit of work:
 *
 * <ul>
 *   <li>CPU, register tile: fill but do not spill the vector registers of the ISA level's {@link
 *       VectorUnit} (at most 256 accumulators, at most 28 of AVX-512's 32 registers or 12 of AVX2's
 *       16, a row narrower than a vector taking a whole one), a multiply-add per load or better
 *       (intensity), no gather along the vectorized axis, tiles that divide constant extents (a
 *       ragged tile's loops have a varying bound and are not unrolled into registers), enough
 *       parallel tasks for the cores.
 *   <li>CPU, packed layout ({@link CpuPackedTiling}): as the register tile, its operands in
 *       contiguous panels, less the copies that pack them.
 *   <li>CPU, dot layout: two loads per vector multiply-add, a gather where the reduction is not
 *       contiguous, idle lanes where it is short.
 *   <li>GPU, row reductions ({@link #rowCost}): a thread per row or a block per row, rows staged in
 *       shared memory or read once per pass.
 *   <li>GPU, tiles: 128 to 512 threads per block, at least two blocks and 256 threads per SM, tiles
 *       that divide constant extents, a register tile of 4 to 32 per thread, shared staging of
 *       reused inputs, reduction steps of at least 8; where a reduction has few steps per output
 *       ({@link #littleReuse}), the machine filled with threads and the warps' accesses coalesced.
 * </ul>
 *
 * <p>It assumes fixed machines (8 cores; 132 SMs), so that the pick does not depend on the build
 * host.
 */
public final class AnalyticPredictor implements Predictor {
  static final int CORES = 8;

  /** The L2 cache a core has, about: what a task's own buffers should fit in. */
  static final double L2_BYTES = 256 * 1024;

  static final int SMS = 132;

  /** What a strided row costs a streaming reduction beyond its run, in bytes (measured, Zen 4). */
  static final double STREAM_ROW_BYTES = 256;

  @Override
  public double cost(Candidate c) {
    boolean gpu = c.target() == Target.CUDA || c.target() == Target.OPENCL;
    double total = 0;
    for (Map<String, Double> n : c.stageNotes().values()) {
      double work = n.getOrDefault("work", 1.0);
      total += work * (gpu ? gpu(n) : cpu(n));
    }
    return total;
  }

  private static double get(Map<String, Double> n, String key, double orElse) {
    return n.getOrDefault(key, orElse);
  }

  private static double cpu(Map<String, Double> n) {
    double cost = 1;
    double parallel = Math.min(1, get(n, "cpu.tasks", 2.0 * CORES) / (2.0 * CORES));
    // Padding checked in the reduction's inner loop, its borders splitting the rows (measured 2.5x
    // on a convolution against the packed layout's padding computed once per task): either other
    // layout pays it.
    double padding = get(n, "cpu.inlined_select", 0) > 0 ? 2 : 1;
    cost *= padding;
    if (get(n, "cpu.dot", 0) > 0) {
      cost = 4 * padding;
      if (get(n, "cpu.dot_strided", 0) > 0) {
        cost *= 16;
      }
      // A short reduction leaves lanes idle and pays a horizontal sum for few multiply-adds. One
      // too short for lanes stays a scalar loop per output, which the compiler vectorizes across
      // the outputs itself: about 8x a vector loop (the maxima of [262144, 3]'s rows: 26 us so,
      // 45 us as a register tile gathering along the rows, 2-core Zen 4).
      double length = get(n, "cpu.dot_length", 1024);
      double idle = Math.max(1, 16 / length);
      cost *= length < RowReduction.MIN_VECTOR_REDUCTION ? Math.min(idle * idle, 8) : idle * idle;
      return cost * get(n, "cpu.waste", 1) / parallel;
    }
    if (get(n, "cpu.row_window", 0) > 0) {
      // A vector multiply-add per load along whole rows (one load per tap and vector, as the best
      // register tile's), no tile to spill or leave ragged, the producer's copies beside.
      return ROW_WINDOW * (1 + get(n, "cpu.producer_ratio", 0)) / parallel;
    }
    if (get(n, "cpu.transposed_rows", 0) > 0) {
      // Rows gathering an operand transposed, 16 of its rows per vector (8x
      // slower than tiles of 16 on a [4,1024,1024] transpose, 2-core Zen 4; TransposeTiles).
      cost *= 8;
    }
    double intensity = get(n, "cpu.intensity", -1);
    if (intensity < 0) {
      return cost;
    }
    cost /= Math.min(intensity, 4) / 4;
    // A streaming reduction down strided rows (no reuse, accumulators in L1): a run of L bytes a
    // row costs about L + 256 (the prefetchers do not follow a stride across pages).
    double run = get(n, "cpu.stream_run", 0);
    if (run > 0) {
      cost *= (run + STREAM_ROW_BYTES) / run * Math.pow(2, get(n, "cpu.ragged", 0));
      return cost * get(n, "cpu.waste", 1) / parallel;
    }
    double reg = get(n, "cpu.reg_tile", 1);
    if (reg > 256) {
      cost *= (reg / 256) * (reg / 256);
    }
    // The share of a vector the innermost tile fills.
    cost /= get(n, "cpu.lane_fill", 1);
    // The vector registers the accumulators take (a row of the tile narrower than a vector still
    // takes a whole register) against those they may take: beyond, the operands have none left,
    // and they spill (28 of AVX-512's 32, 12 of AVX2's 16: VectorUnit).
    double pressure = get(n, "cpu.register_pressure", 0);
    if (pressure > 1) {
      cost *= pressure * pressure;
    }
    if (get(n, "cpu.gather", 0) > 0) {
      cost *= 16;
    }
    cost *= Math.pow(2, get(n, "cpu.ragged", 0));
    // The packed layout: its panels are contiguous (a matmul's B read in place strides a row of B
    // per step of the reduction: 3x slower at 1024 on a 2-core AVX-512 Xeon), and packing them
    // costs a copy per element against the multiply-adds that reuse it.
    if (get(n, "cpu.packed_layout", 0) > 0) {
      cost *= 0.8 * (1 + 4 * get(n, "cpu.pack_ratio", 0));
      // Producers (padding), per task or once before the tasks: their copies, and their bytes
      // beyond L2.
      cost *= 1 + 4 * get(n, "cpu.producer_ratio", 0);
      cost *= Math.max(1, get(n, "cpu.producer_bytes", 0) / L2_BYTES);
      // Where the packed tiles run in parallel (CpuPackedTiling.parallelOverV): the panel past the
      // L2 of the vector unit's cores (VectorUnit.l2Bytes).
      cost *= Math.max(1, get(n, "cpu.panel_l2", 0));
    }
    return cost * get(n, "cpu.waste", 1) / parallel;
  }

  /**
   * The cost of the row form of a sliding window ({@link CpuRowWindow}) per multiply-add: a
   * register tile at one load per multiply-add costs 4. Ranked so, it is the pick where it
   * qualifies: on the seed's depthwise workloads (2-core Zen 4, AVX-512) it ran 1.3-1.9x faster
   * than the register tiles this model picked before (96x96 fused 430-446 us against 682-899, 21x21
   * 28-40 against 69-77, 23x17 25 against 510-810 with a lane per output), as fast as the best
   * packed tile found by hand at 96x96 (4 x 32: 460-500 us), faster where rows are not whole
   * vectors.
   */
  static final double ROW_WINDOW = 2;

  /** Threads an SM holds, and blocks. */
  static final int SM_THREADS = 2048;

  static final int SM_BLOCKS = 32;

  /** The 32-bit registers of an SM. */
  static final double SM_REGISTERS = 65536;

  static final double SM_SHARED = 228 * 1024;

  /**
   * A row reduction over {@code rows} rows of {@code length} elements: by {@code threads} threads
   * per row (a block each, with cross-thread reductions; below a warp, {@code perBlock} rows a
   * block), or with 1, a thread per row and {@code perBlock} rows per block. Time per element
   * relative to streaming the rows at full bandwidth: the machine needs about {@value #SM_THREADS}
   * resident threads per SM; a thread per row reads its row with a stride between neighbouring
   * threads (uncoalesced: a sector per element); the threads of a block beyond the row's length
   * idle; the rows staged in shared memory ({@code sharedBytes} a block) can limit the blocks an SM
   * holds; and each all-reduce across the block is a tree of log2(threads) barrier steps, paid once
   * per row against the row's elements per thread. Where the rows are {@code strided} (a reduction
   * over NCHW's channels: neighbouring rows are neighbouring words), it is the other way round: a
   * thread per row reads coalesced, and a block's threads along one row read a sector per element.
   */
  static double rowCost(
      double rows,
      double length,
      double threads,
      double perBlock,
      double sharedBytes,
      boolean strided) {
    double sectorPerElement = Math.min(8, Math.max(1, length / 4));
    if (threads <= 1) {
      double resident = Math.min(SM_THREADS, SM_BLOCKS * perBlock);
      double busy = Math.min(resident / SM_THREADS, rows / (SMS * (double) SM_THREADS));
      double stride = strided ? 1 : sectorPerElement;
      return stride * Math.max(1, 32 / perBlock) / busy;
    }
    // Blocks resident per SM: limited by threads, blocks and the shared memory each one takes
    // (the staged rows and the all-reduce's slots). Below a warp per row, a block holds perBlock
    // rows.
    double blockThreads = threads * (threads < ThreadTag.WARP ? perBlock : 1);
    double blocks = Math.min(SM_BLOCKS, Math.floor(SM_THREADS / blockThreads));
    blocks =
        Math.max(1, Math.min(blocks, Math.floor(SM_SHARED / (sharedBytes + 4 * blockThreads))));
    double resident = Math.min(SM_THREADS, blocks * blockThreads);
    double waves = rows * threads / (SMS * (double) SM_THREADS);
    double busy = Math.min(resident / SM_THREADS, waves);
    double perThread = Math.ceil(length / threads);
    double idle = perThread * threads / length;
    double tree = 0.1 * (Math.log(threads) / Math.log(2)) / perThread;
    // The passes over a row (each reduction, then the output) read it again: from shared memory
    // where it is staged, from L1 where the rows an SM holds fit in it, else from L2.
    double residentRows = resident / threads;
    double again = sharedBytes == 0 && residentRows * 4 * length > L1_BYTES ? 1.2 : 1;
    double layout = strided ? sectorPerElement : 1;
    if (threads < ThreadTag.WARP) {
      // Rows within a warp: each thread's elements of a row are a serial chain of loads per pass,
      // each all-reduce a fixed cost (slots, barriers) per row besides its steps, and a second
      // wave of threads still hides latency. Fitted on an H100 (softmax over [65536, 16]: 2, 4,
      // 8, 16 threads a row 9.5, 5.5, 4.1, 6.2 us; layer norm over [65536, 64]: 4, 8, 16 threads
      // 25.4, 14.1, 11.9 us; over [16384, 1024], 16 threads 114 us against 53 for a block of 64).
      double fill = Math.min(resident / SM_THREADS, Math.min(2, waves) / 2);
      double chain = 0.05 * perThread;
      return again * (idle / fill + tree + 0.5 / perThread + chain) * layout;
    }
    return again * (idle / busy + tree) * layout;
  }

  /** The L1 data cache an SM has beside the shared memory its blocks take, about. */
  static final double L1_BYTES = 128 * 1024;

  /**
   * A reduction of fewer steps than this per output element (a pooling window, a depthwise filter)
   * reuses its inputs too little for register tiles and shared staging to pay: it is bound by
   * latency and memory, as the naive kernel with a thread per output is.
   */
  static final double LITTLE_REUSE = 32;

  /**
   * Whether a tiled reduction of {@code reduce} steps per output, {@code reused} of whose inputs
   * some threads share, reuses its inputs too little for tiles to pay: a short reduction, or one
   * that reads every input element for one output only (a sum over the batch).
   */
  static boolean littleReuse(double reduce, double reused) {
    return reduce < LITTLE_REUSE || reused == 0;
  }

  /**
   * GPU tiles of a reduction with little reuse: the machine filled with threads that have work (at
   * least half of the {@value #SM_THREADS} an SM holds: each thread's chain of loads and index
   * arithmetic is then hidden behind the others'), tiles that divide the extents, a warp's reads
   * and writes in whole sectors (a run of {@code L} bytes costs about {@code L + 32} bytes of
   * sectors), no barrier for a shared copy that the caches make anyway. A register tile only
   * lengthens each thread's serial chain.
   */
  private static double littleReuse(Map<String, Double> n) {
    double threads = get(n, "gpu.active_threads", get(n, "gpu.total_threads", 1));
    double cost = 1 / Math.min(1, threads / (SMS * SM_THREADS / 2.0));
    double bytes = 4 * get(n, "gpu.warp_run", 32);
    cost *= (bytes + 32) / bytes;
    if (get(n, "gpu.shared", 0) > 0) {
      cost *= 1.25;
    }
    cost *= Math.pow(2, get(n, "gpu.ragged", 0));
    double reg = get(n, "gpu.reg_tile", 1);
    if (reg > 64) {
      cost *= reg / 64;
    }
    // The loads each thread issues per multiply-add, against a thread per output's: a register
    // tile sliding along a window, its elements loaded into registers once, loads less (an H100
    // fused depthwise [32,256,96,96]: 345 us with a thread per output, 219-231 us with 8 rows a
    // thread, 260 with 4, 275 with 3; [1,256,96,96]: 9.1 us, 5.0 with 6 or 8 rows).
    double naive = get(n, "gpu.naive_loads", 1);
    cost *= Math.sqrt(get(n, "gpu.thread_loads", naive) / naive);
    // What a block reads per output, its halo included, against a naive block's: the misses of
    // L1 (the H100 [32,256,96,96], 6 rows a thread: blocks of 8 images x 12 rows, 242 us; of 1
    // image x 24 rows, 228 us).
    double naiveBlock = get(n, "gpu.naive_block_loads", 1);
    cost *= Math.sqrt(get(n, "gpu.block_loads", naiveBlock) / naiveBlock);
    // Registers (accumulators, window and about 32 more) limit the threads an SM holds: fewer than
    // half of them hide the loads' latency poorly (the H100 [32,256,96,96]: 2 images of 8 rows a
    // thread, 108 registers, 265 us; 1 image, 70 registers, 223 us); beyond about 224 they spill.
    double regs = reg + get(n, "gpu.window_regs", 0);
    cost /= Math.min(1, Math.min(SM_THREADS, SM_REGISTERS / (regs + 32)) / (SM_THREADS / 2.0));
    if (regs > 224) {
      cost *= regs / 224;
    }
    return cost;
  }

  private static double gpu(Map<String, Double> n) {
    double cost = 1;
    if (n.containsKey("gpu.row_threads")) {
      return rowCost(
          get(n, "gpu.row_blocks", 1) * get(n, "gpu.rows_per_block", 1),
          get(n, "gpu.row_length", 1),
          get(n, "gpu.row_threads", 1),
          get(n, "gpu.rows_per_block", 32),
          get(n, "gpu.row_staged_bytes", 0),
          get(n, "gpu.row_strided", 0) > 0);
    }
    double threads = get(n, "gpu.threads", get(n, "threads", 256));
    if (threads < 128) {
      cost *= 128 / threads;
    } else if (threads > 512) {
      cost *= threads / 512;
    }
    if (get(n, "gpu.transposed_rows", 0) > 0) {
      // Each warp reading 32 rows of an operand transposed (TransposeTiles).
      cost *= 4;
    }
    if (!n.containsKey("gpu.blocks")) {
      return cost;
    }
    cost /= Math.min(1, get(n, "gpu.blocks", 1) / (2.0 * SMS));
    if (littleReuse(get(n, "gpu.reduce", 1024), get(n, "gpu.reused", 1))
        || get(n, "gpu.windows_only", 0) > 0) {
      return cost * littleReuse(n);
    }
    // Threads with no output (a tile wider than its axis: 8 x 64 columns over 64) hold their
    // block's slots and compute nothing; enough threads with work to hide memory latency: at least
    // 256 per SM. (Attention's [1024, 1024] x [1024, 64] took a tile of 2 x 512 with 1 thread in 8
    // busy, counted as 32768 threads: 390 us on an H100, against cuBLAS and softmax's 25 us.)
    double total = get(n, "gpu.total_threads", 1);
    double active = Math.min(total, get(n, "gpu.active_threads", total));
    cost *= total / Math.max(active, 1);
    cost /= Math.min(1, active / (256.0 * SMS));
    // Each thread's register tile: its loads from shared memory per multiply-add fall as it grows
    // up to 64 accumulators (8 x 8; on the H200 a matmul 2048 took 538 us at 8 x 8, 612 at 8 x 4,
    // 726 at 4 x 4), registers run out beyond. Blocks over 256 threads (at 512: 734-809 us against
    // 538-617 at 128-256) hold more registers each and fewer fit an SM.
    double reg = get(n, "gpu.reg_tile", 1);
    boolean staged =
        get(n, "gpu.shared", 0) > 0 && get(n, "gpu.unstaged", 0) < get(n, "gpu.reused", 0);
    if (!staged && reg > 1) {
      // With nothing in shared memory there are no shared loads for the tile to save: it lengthens
      // each thread's chain of global loads and leaves fewer threads to hide them (H100, against
      // one output a thread: a Gram matrix X^T X per batch [8, 300, 96] 22.9 us with two batches
      // a thread, 29.3 with two columns, 10.7 with one; an int32 [384, 300] x [300, 257] 16.2 us
      // with two rows, 42.6 with three, 11.4 with one).
      cost *= Math.pow(64, 0.25) * reg;
    } else if (reg < 64) {
      cost *= Math.pow(64 / reg, 0.25);
    } else if (reg > 64) {
      cost *= reg / 64;
    }
    if (threads > 256) {
      cost *= Math.sqrt(threads / 256);
    }
    // A reused input read from global memory in the multiply-adds (not staged, or its tile too
    // large for shared memory): 1387 against 456 us for an H200 conv2d staged.
    if (get(n, "gpu.unstaged", get(n, "gpu.shared", 0) == 0 ? get(n, "gpu.reused", 0) : 0) > 0) {
      cost *= 2;
    }
    // Latency is hidden by the warps resident on an SM: at least 512 threads, limited by the
    // blocks' shared tiles and by registers (a register tile of r takes about r + 32 per thread).
    double sharedBytes = get(n, "gpu.shared_bytes", 0);
    double blocksPerSm = Math.min(SM_BLOCKS, Math.floor(SM_THREADS / threads));
    if (sharedBytes > 0) {
      blocksPerSm = Math.min(blocksPerSm, Math.floor(SM_SHARED / sharedBytes));
    }
    double resident = Math.min(blocksPerSm * threads, SM_REGISTERS / (reg + 32));
    cost /= Math.min(1, Math.max(resident, 1) / 512);
    // A block's multiply-adds per element it loads of the reused inputs per reduction step: below
    // a few dozen, the loads from L2 (and the barriers per step) compete with the arithmetic.
    cost *= 1 + 8 / Math.max(get(n, "gpu.block_intensity", 1e9), 1e-3);
    cost *= Math.pow(2, get(n, "gpu.ragged", 0));
    // Reduction steps per barrier pair: a tile_k chunk times the reduce axes after the first (a
    // convolution's 3 x 3 taps), at least 8.
    double tk = get(n, "gpu.step_reduce", get(n, "gpu.tile_k", 8));
    if (tk < 8) {
      cost *= 8 / tk;
    }
    // A register tile along the output's innermost axis puts neighbouring threads that tile
    // apart: their stores are not coalesced and their shared reads fall in fewer banks, unless
    // the tile is whole 16-byte vectors the native compiler can load and store at once, which a
    // window sliding along that axis (a convolution's x + dj) does not allow either (an H200
    // conv2d with a row tile of 7: 591 us; of 1, with the same reuse elsewhere: 324-400 us).
    // Inputs the multiply-adds read from global memory: a warp whose threads lie along an outer
    // axis touches a sector per few elements (an H100 stereo cost volume [64,48,64] over 40
    // disparities, its right image read at w - d by warps of 2 columns x 16 rows: 0.27x its naive
    // kernel, whose warps read 32 columns). Against a whole warp's run of 32, as the other rows.
    if (get(n, "gpu.direct_inputs", 0) > 0) {
      double bytes = 4 * Math.max(1, get(n, "gpu.direct_run", 32));
      cost *= Math.max(1, (bytes + 32) / bytes / 1.25);
    }
    // A warp whose lanes cover fewer than 4 consecutive outputs of the innermost axis (its threads
    // along outer axes) stores a sector per output or two and reads its staged tiles across rows
    // (bank conflicts): an H100 1x1 stride-2 convolution [1,256,56,56] x 512, warps over 14
    // columns 19.3 us, over one column of 14 rows 38.1. Against a warp's 32. (Weighed from 8
    // down, it moved convolutions whose warps cover 4 to 7 columns to slower picks: a 3x3 stride-2
    // [1,64,56,56] x 128 23.4 -> 34.3 us, bench/results/gpu-2026-12-07d/run23.)
    double run = Math.max(1, get(n, "gpu.direct_run", 32));
    if (run < 4) {
      cost *= Math.sqrt((4 * run + 32) / (4 * run) / 1.25);
    }
    double inner = get(n, "gpu.reg_inner", 1);
    cost *= 1 + 0.05 * (inner - 1);
    if (inner > 1 && (inner % 4 != 0 || get(n, "gpu.inner_window", 0) > 0)) {
      cost *= 1.5; // (an H200 conv2d [1,64,56,56]: a row tile of 4 33.5 us, of 1 27.8 us)
    }
    return cost;
  }
}
