/**
 * Schedules generated from the compute DAG, in the manner of Ansor (Zheng et al., OSDI 2020): no
 * schedule written by hand.
 *
 * <p><b>Sketches.</b> An ordered list of {@link dev.kernelgen.autosched.SketchRule}s (data: {@link
 * dev.kernelgen.autosched.SketchRules#defaults} is the list, a user passes their own) walks the
 * stages of the operator, consumers first, and schedules them with the ordinary primitives:
 * injective stages are inlined (unless a reduction would recompute a costly one); row reductions
 * (softmax, layer norm) are computed once per row inside the loop nest of the stage that reads
 * them; other reductions get multi-level tiling with their elementwise consumer fused into the
 * tile's copy-out (CPU: parallel outer tiles, a register tile with the reduction around it,
 * vectorized, or where the inputs are contiguous along the reduction rather than along an output
 * axis, each output's reduction in vector lanes, or on C the packed layout: vectorized along an
 * output axis that some operand is broadcast along, weights packed into panels with that axis
 * innermost, padding computed once per task, as a matmul's or a convolution's micro-kernel, or on C
 * for a sliding window with no other reuse (a depthwise convolution, a pooling window, a stencil)
 * the row form of {@code CpuRowWindow}: planes in parallel, the padding per band of rows, each row
 * summed in a vectorized row buffer, a small plane at its pitch; GPU: block, thread and register
 * tiles, local accumulators, shared-memory staging of reused inputs, and for short reductions a
 * thread's sliding window loaded into registers once, {@code SlidingWindow}); what is left runs
 * elementwise (parallel and vectorized, or a thread per element; in tiles staged through a local or
 * shared buffer where it reads an operand transposed, {@code TransposeTiles}; on C in phases of the
 * columns where its reads divide them, {@code CpuColumnPhases}). A second sketch is the naive floor
 * ({@code NaiveSchedule}), so that the space always holds it. A third, where the DAG has a direct
 * 3x3 stride-1 convolution (the library's or a user's own loop), is the same rules over the DAG
 * rewritten to compute it by Winograd's F(2x2, 3x3) ({@code algo.ConvRewrite}, {@code
 * WinogradSketch}): the tuner races the algorithms like any knob.
 *
 * <p><b>Annotation.</b> Tile sizes, thread counts, staging and the sketch are knobs ({@link
 * dev.kernelgen.spec.Knobs}): a generated schedule is a function (operator, target, knobs) to
 * schedule exactly as a hand template in {@code topi} is, so the tuner's {@link
 * dev.kernelgen.tune.ConfigSpace} covers it. Tiles are constants (powers of two and divisors of
 * constant extents); a symbolic extent gets a constant tile and a tail guard, so every local and
 * shared buffer has a constant size.
 *
 * <p><b>Untuned pick.</b> Without a tuning record, {@link
 * dev.kernelgen.autosched.AutoScheduler#untunedConfig} draws configurations with a fixed seed,
 * ranks them with a {@link dev.kernelgen.autosched.Predictor} (the shipped {@link
 * dev.kernelgen.autosched.AnalyticPredictor}; a learned model can replace it), on CPUs shrinks the
 * best-ranked ones that lower too long until they fit, and takes the best that lowers, or on GPUs
 * the naive floor where every tiled stage is a reduction with little reuse and the predictor ranks
 * the floor at least as fast: deterministic, so two builds are byte-identical, and cheap (schedules
 * are built, not measured; one is lowered). On C the ranking is for a {@link
 * dev.kernelgen.autosched.VectorUnit} (the lanes and vector registers of an ISA level): each
 * level's library gets the pick for its own unit where it differs (the space is the same on every
 * level, so a record tuned at one applies at any).
 */
package dev.kernelgen.autosched;
