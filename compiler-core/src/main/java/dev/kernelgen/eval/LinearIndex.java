package dev.kernelgen.eval;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * An index expression compiled for the interpreters (not the simplifier's canonical form, {@code
 * arith.LinearForm}): an integer expression in the form {@code c + sum(coef * term)}, where a term
 * is a variable's slot, the floor quotient or remainder of a slot by a positive constant, or any
 * other compiled node. Index expressions are nearly always of this form; evaluating them with loops
 * over arrays, in a final class that the JIT inlines, avoids a virtual call per operation of a tree
 * of nodes.
 *
 * <p>The sum is computed in 64 bits and an int32 form wraps once at the end: the same result as
 * wrapping after each addition and multiplication, since wrapping commutes with them.
 */
final class LinearIndex {
  static final int PLAIN = 0;
  static final int FLOOR_DIV = 1;
  static final int FLOOR_MOD = 2;

  private final long constant;
  private final int[] slots;
  private final int[] kinds;
  private final long[] divisors;
  private final long[] coefs;
  private final LongNode[] nodes;
  private final long[] nodeCoefs;
  private final boolean wrap32;

  private LinearIndex(Builder b, boolean wrap32) {
    this.constant = b.constant;
    int n = b.slots.size();
    this.slots = new int[n];
    this.kinds = new int[n];
    this.divisors = new long[n];
    this.coefs = new long[n];
    for (int k = 0; k < n; k++) {
      SlotTerm t = b.slots.get(k);
      slots[k] = t.slot;
      kinds[k] = t.kind;
      divisors[k] = t.divisor;
      coefs[k] = t.coef;
    }
    this.nodes = b.nodes.toArray(LongNode[]::new);
    this.nodeCoefs = b.nodeCoefs.stream().mapToLong(Long::longValue).toArray();
    this.wrap32 = wrap32;
  }

  long eval(Frame f) {
    long s = constant;
    long[] ints = f.ints;
    for (int k = 0; k < slots.length; k++) {
      long v = ints[slots[k]];
      int kind = kinds[k];
      if (kind == FLOOR_DIV) {
        v = Math.floorDiv(v, divisors[k]);
      } else if (kind == FLOOR_MOD) {
        v = Math.floorMod(v, divisors[k]);
      }
      s += coefs[k] * v;
    }
    for (int k = 0; k < nodes.length; k++) {
      s += nodeCoefs[k] * nodes[k].eval(f);
    }
    return wrap32 ? (int) s : s;
  }

  /**
   * How much the form grows when slot {@code slot} grows by one, the other slots fixed; null when
   * that is not known to be a constant (the slot is under a floor division, the form has node
   * terms, or it wraps to 32 bits).
   */
  Long stride(int slot) {
    if (nodes.length > 0 || wrap32) {
      return null;
    }
    long stride = 0;
    for (int k = 0; k < slots.length; k++) {
      if (slots[k] == slot) {
        if (kinds[k] != PLAIN) {
          return null;
        }
        stride += coefs[k];
      }
    }
    return stride;
  }

  /** The form as the cheapest node: a constant, a slot, or a node over this form. */
  static LongNode toNode(Builder b, boolean wrap32) {
    if (b.slots.isEmpty() && b.nodes.isEmpty()) {
      return new LongNode.Const(wrap32 ? (int) b.constant : b.constant);
    }
    if (b.nodes.isEmpty() && b.slots.size() == 1 && b.constant == 0) {
      SlotTerm t = b.slots.get(0);
      if (t.kind == PLAIN && t.coef == 1) {
        return new LongNode.Slot(t.slot); // slots hold values of their variable's dtype
      }
    }
    if (b.slots.isEmpty() && b.nodes.size() == 1 && b.constant == 0 && b.nodeCoefs.get(0) == 1) {
      return b.nodes.get(0);
    }
    LinearIndex form = new LinearIndex(b, wrap32);
    return new LongNode() {
      @Override
      long eval(Frame f) {
        return form.eval(f);
      }
    };
  }

  static LinearIndex of(Builder b, boolean wrap32) {
    return new LinearIndex(b, wrap32);
  }

  private record SlotTerm(int slot, int kind, long divisor, long coef) {}

  /** Collects a form: terms are merged where they are the same slot and kind. */
  static final class Builder {
    long constant;
    final List<SlotTerm> slots = new ArrayList<>();
    final List<LongNode> nodes = new ArrayList<>();
    final List<Long> nodeCoefs = new ArrayList<>();

    static Builder constant(long c) {
      Builder b = new Builder();
      b.constant = c;
      return b;
    }

    static Builder slot(int slot, int kind, long divisor) {
      Builder b = new Builder();
      b.slots.add(new SlotTerm(slot, kind, divisor, 1));
      return b;
    }

    static Builder node(LongNode n) {
      if (n instanceof LongNode.Const c) {
        return constant(c.value);
      }
      if (n instanceof LongNode.Slot s) {
        return slot(s.slot, PLAIN, 0);
      }
      Builder b = new Builder();
      b.nodes.add(n);
      b.nodeCoefs.add(1L);
      return b;
    }

    boolean isConstant() {
      return slots.isEmpty() && nodes.isEmpty();
    }

    /** {@code this + scale * o}. */
    Builder plus(Builder o, long scale) {
      Builder r = new Builder();
      r.constant = constant + scale * o.constant;
      r.slots.addAll(slots);
      for (SlotTerm t : o.slots) {
        r.addSlot(new SlotTerm(t.slot, t.kind, t.divisor, t.coef * scale));
      }
      r.nodes.addAll(nodes);
      r.nodeCoefs.addAll(nodeCoefs);
      for (int k = 0; k < o.nodes.size(); k++) {
        r.nodes.add(o.nodes.get(k));
        r.nodeCoefs.add(o.nodeCoefs.get(k) * scale);
      }
      return r;
    }

    private void addSlot(SlotTerm t) {
      for (int k = 0; k < slots.size(); k++) {
        SlotTerm u = slots.get(k);
        if (u.slot == t.slot && u.kind == t.kind && u.divisor == t.divisor) {
          long coef = u.coef + t.coef;
          if (coef == 0) {
            slots.remove(k);
          } else {
            slots.set(k, new SlotTerm(u.slot, u.kind, u.divisor, coef));
          }
          return;
        }
      }
      slots.add(t);
    }

    Builder times(long scale) {
      return new Builder().plus(this, scale);
    }

    /**
     * The least and greatest value of the form, given the value range {@code [lo, hi]} of each slot
     * in {@code ranges} (by slot); null when a term is not a slot with a known range, or on
     * overflow.
     */
    long[] bounds(Map<Integer, long[]> ranges) {
      if (!nodes.isEmpty()) {
        return null;
      }
      try {
        long lo = constant;
        long hi = constant;
        for (SlotTerm t : slots) {
          long[] r = ranges.get(t.slot);
          if (r == null) {
            return null;
          }
          long a = r[0];
          long b = r[1];
          if (t.kind == FLOOR_DIV) {
            a = Math.floorDiv(a, t.divisor);
            b = Math.floorDiv(b, t.divisor);
          } else if (t.kind == FLOOR_MOD) {
            boolean oneWrap = Math.floorDiv(a, t.divisor) == Math.floorDiv(b, t.divisor);
            a = oneWrap ? Math.floorMod(a, t.divisor) : 0;
            b = oneWrap ? Math.floorMod(b, t.divisor) : t.divisor - 1;
          }
          long x = Math.multiplyExact(a, t.coef);
          long y = Math.multiplyExact(b, t.coef);
          lo = Math.addExact(lo, Math.min(x, y));
          hi = Math.addExact(hi, Math.max(x, y));
        }
        return new long[] {lo, hi};
      } catch (ArithmeticException overflow) {
        return null;
      }
    }
  }
}
