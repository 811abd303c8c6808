package dev.kernelgen.tir;

import dev.kernelgen.te.MemoryScope;

/** Waits until all threads of a block arrive, making their writes to {@code scope} visible. */
public record Barrier(MemoryScope scope) implements Stmt {}
