package dev.kernelgen.tir;

import dev.kernelgen.te.Buffer;
import dev.kernelgen.te.Expr;

/** Allocates {@code size} elements for {@code buffer}, live in {@code body}. */
public record Allocate(Buffer buffer, Expr size, Stmt body) implements Stmt {}
