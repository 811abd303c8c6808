package dev.kernelgen.tir;

import dev.kernelgen.te.Expr;
import dev.kernelgen.te.Var;

/** Binds {@code var} to {@code value} in {@code body}. */
public record LetStmt(Var var, Expr value, Stmt body) implements Stmt {}
