/**
 * Schedules: a {@link dev.kernelgen.schedule.Stage} per operation with its primitives (split, tile,
 * fuse, reorder, compute_at, compute_inline, compute_root, bind, unroll, vectorize, parallel,
 * pragma, set_scope; cache_read and cache_write on the schedule), kept as relations and attributes,
 * with a replayable {@link dev.kernelgen.schedule.Trace}.
 */
package dev.kernelgen.schedule;
