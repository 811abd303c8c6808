package dev.kernelgen.tir;

import java.util.ArrayList;
import java.util.List;

/** Statements in order. */
public record Seq(List<Stmt> stmts) implements Stmt {
  public Seq {
    stmts = List.copyOf(stmts);
  }

  /** The statements in order, nested sequences flattened; a single statement as itself. */
  public static Stmt of(List<Stmt> stmts) {
    List<Stmt> flat = new ArrayList<>();
    for (Stmt s : stmts) {
      if (s instanceof Seq q) {
        flat.addAll(q.stmts());
      } else if (s != null) {
        flat.add(s);
      }
    }
    return flat.size() == 1 ? flat.get(0) : new Seq(flat);
  }

  public static Stmt of(Stmt... stmts) {
    return of(java.util.Arrays.asList(stmts));
  }
}
