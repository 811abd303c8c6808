package dev.kernelgen.autosched;

import dev.kernelgen.arith.ConstIntBound;
import dev.kernelgen.arith.Simplifier;
import dev.kernelgen.schedule.PaddedReads;
import dev.kernelgen.schedule.Stage;
import dev.kernelgen.te.Expr;
import dev.kernelgen.te.ExprVisitor;
import dev.kernelgen.te.FreeVars;
import dev.kernelgen.te.IntImm;
import dev.kernelgen.te.IterVar;
import dev.kernelgen.te.Select;
import dev.kernelgen.te.Tensor;
import dev.kernelgen.te.TensorRead;
import dev.kernelgen.te.Var;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * A window's padding written inside its reduction, {@code sum(select(y + dy - 1 >= 0 && ..., x[...,
 * y + dy - 1, ...], 0) * w)}, becomes a padded copy of the input that the reduction reads without
 * the select ({@link dev.kernelgen.schedule.Schedule#pad}), as if the user had written {@code
 * topi}'s pad: on CPUs the rules then compute the padding once per task or band instead of testing
 * the bounds at every tap, which also kept the loops from vectorizing (a 3x3 depthwise filter of
 * stride 2 and dilation 2 over [1,128,56,56]: 365-465 us so, 58 us through a padded copy, 2 Zen 4
 * cores). It applies to tensors read through a window at constant shapes, where every select around
 * a read of the tensor gives one value and tests that read's bounds alone: inputs, and stages
 * computed before the window (a pre-activation block's {@code relu(x * scale + shift)}, which the
 * rules then inline into the padded copy: a 3x3 depthwise filter over [1,128,56,56] 186 -> 90 us).
 * On GPUs the copy is inlined ({@link InlineInjective}) where it is read: a thread per output tests
 * the bounds as before, and tiles that stage the input in shared memory test them once per element
 * they copy, as for {@code topi}'s padded convolutions, instead of at every tap of every output (on
 * an H100, a dilated 3x3 convolution [1,64,56,56]x64 47.5 -> 24.4 us, a strided 1-d convolution
 * with GELU 124 -> 36 us, a 3-d convolution 27 -> 17 us; no pick slower).
 *
 * <p>On CPUs an input read through a strided window along the output's rows without padding (a
 * pooling of stride 2) is copied the same way, with nothing to pad: the row form then takes it, its
 * copy in phases of the stride, where the tiles read each tap's strided elements into an
 * accumulator in memory (a 2x2x2 max pool of stride 2 over [1,8,16,112,112]: 263 -> 66 us, its
 * naive loops 85; an average pool 2x2 over [8,64,112,112] 600 -> 440-475 us; 2 Zen 4 cores).
 */
final class PadWindowReads implements SketchRule {
  @Override
  public String name() {
    return "pad_window_reads";
  }

  @Override
  public boolean applies(SketchState state, Stage st) {
    return st.hasReduction() && !padded(state, st).isEmpty();
  }

  @Override
  public void apply(SketchState state, Stage st) {
    for (var e : padded(state, st).entrySet()) {
      Padding p = e.getValue();
      state.schedule().pad(e.getKey(), p.before(), p.after(), p.value(), st.tensor());
    }
  }

  /**
   * The stride of the windows copied without padding on CPUs: 2, a pooling's. In more phases the
   * row form lost (a max over windows of 25 taps, stride 10, along [128, 8000]: 1440 us copied
   * against 695 us for the tiles, its naive loops 720).
   */
  static final int MAX_COPIED_STRIDE = 2;

  /** The padding of a tensor: elements before and after each axis, and their value. */
  private record Padding(long[] before, long[] after, Expr value) {}

  /**
   * The tensors {@code st} reads through bounds selects, with the padding that covers its reads.
   */
  private static Map<Tensor, Padding> padded(SketchState state, Stage st) {
    Map<Var, ConstIntBound> bounds = new HashMap<>();
    List<IterVar> axes = new ArrayList<>(st.axis());
    axes.addAll(st.reduceAxis());
    for (IterVar iv : axes) {
      if (!(iv.dom().min() instanceof IntImm lo) || !(iv.dom().extent() instanceof IntImm n)) {
        return Map.of();
      }
      bounds.put(iv.var(), ConstIntBound.range(lo.value(), n.value()));
    }
    Map<Tensor, List<TensorRead>> reads = new LinkedHashMap<>();
    Map<Tensor, List<Select>> selects = new LinkedHashMap<>();
    new ExprVisitor() {
      @Override
      public void visit(Expr e) {
        if (e instanceof TensorRead r) {
          reads.computeIfAbsent(r.tensor(), k -> new ArrayList<>()).add(r);
        }
        if (e instanceof Select s && s.trueValue() instanceof TensorRead r) {
          selects.computeIfAbsent(r.tensor(), k -> new ArrayList<>()).add(s);
        }
        super.visit(e);
      }
    }.visit(st.body());
    Map<Tensor, Padding> out = new LinkedHashMap<>();
    if (!state.gpu()) {
      out.putAll(stridedCopies(st, reads, selects.keySet()));
    }
    for (var e : selects.entrySet()) {
      Tensor t = e.getKey();
      Padding p = padding(t, e.getValue(), reads.get(t), bounds);
      if (p != null && e.getValue().stream().anyMatch(sel -> slides(st, sel.trueValue()))) {
        out.put(t, p);
      }
    }
    return out;
  }

  /**
   * The placeholders {@code st} reads through a window of stride {@link #MAX_COPIED_STRIDE} along
   * its rows, without a select around them ({@code selected}): each copied, padded by nothing, for
   * the row form to store in phases of the stride ({@link CpuRowWindow}).
   */
  private static Map<Tensor, Padding> stridedCopies(
      Stage st, Map<Tensor, List<TensorRead>> reads, java.util.Set<Tensor> selected) {
    Var col = st.axis().get(st.axis().size() - 1).var();
    Map<Tensor, Padding> out = new LinkedHashMap<>();
    for (var e : reads.entrySet()) {
      Tensor t = e.getKey();
      if (!(t.op() instanceof dev.kernelgen.te.PlaceholderOp)
          || selected.contains(t)
          || !t.shape().stream().allMatch(d -> d instanceof IntImm)) {
        continue;
      }
      for (TensorRead r : e.getValue()) {
        Long step = Simplifier.step(r.indices().get(r.indices().size() - 1), col);
        if (step != null && step == MAX_COPIED_STRIDE && slides(st, r)) {
          Expr zero = dev.kernelgen.te.Cast.of(t.dtype(), IntImm.of(0));
          out.put(t, new Padding(new long[t.ndim()], new long[t.ndim()], zero));
          break;
        }
      }
    }
    return out;
  }

  /**
   * Whether a read's index moves with both an output axis and a reduce axis ({@code i * s + ky *
   * d}): a window, each element read for several outputs.
   */
  private static boolean slides(Stage st, Expr read) {
    for (Expr i : ((TensorRead) read).indices()) {
      if (st.axis().stream().anyMatch(a -> FreeVars.uses(i, a.var()))
          && st.reduceAxis().stream().anyMatch(a -> FreeVars.uses(i, a.var()))) {
        return true;
      }
    }
    return false;
  }

  /**
   * The padding that holds every read of {@code t}, where each select around one tests its bounds
   * alone and gives one value that no loop varies; null where one does not, or where no read leaves
   * {@code t}.
   */
  private static Padding padding(
      Tensor t, List<Select> selects, List<TensorRead> reads, Map<Var, ConstIntBound> bounds) {
    Expr value = selects.get(0).falseValue();
    if (!FreeVars.of(value).isEmpty()) {
      return null; // a value that varies (the output's own element): no one value to pad with
    }
    for (Select s : selects) {
      if (!s.falseValue().equals(value)
          || !PaddedReads.testsBoundsOnly(s.cond(), (TensorRead) s.trueValue())) {
        return null;
      }
    }
    long[] before = new long[t.ndim()];
    long[] after = new long[t.ndim()];
    boolean any = false;
    long size = 1;
    long paddedSize = 1;
    for (int d = 0; d < t.ndim(); d++) {
      if (!(t.shape().get(d) instanceof IntImm n)) {
        return null;
      }
      for (TensorRead r : reads) {
        ConstIntBound b = Simplifier.bound(r.indices().get(d), bounds);
        if (b.min() == ConstIntBound.NEG_INF || b.max() == ConstIntBound.POS_INF) {
          return null;
        }
        before[d] = Math.max(before[d], -b.min());
        after[d] = Math.max(after[d], b.max() - (n.value() - 1));
      }
      any |= before[d] > 0 || after[d] > 0;
      size *= n.value();
      paddedSize *= n.value() + before[d] + after[d];
    }
    // (A copy much larger than the input is not padding: a window that overhangs this far reads
    // mostly the value itself.)
    return any && paddedSize <= 2 * size ? new Padding(before, after, value) : null;
  }
}
