package dev.kernelgen.eval;

import dev.kernelgen.diag.CompilerBug;
import dev.kernelgen.diag.UserError;
import dev.kernelgen.te.Buffer;
import dev.kernelgen.te.Var;
import dev.kernelgen.tir.Allocate;
import dev.kernelgen.tir.PrimFunc;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Runs a lowered {@link PrimFunc} on host arrays, without any native compiler. Every load and store
 * is checked against its buffer's size; an access outside is a {@link CompilerBug} naming the
 * buffer and the index. Allocations are fresh for each execution of the {@link Allocate}, and
 * floating-point ones start as NaN so that reads of memory nobody wrote show up in the results.
 *
 * <p>Loops of every kind run serially, blockIdx and vthread loops included. So do threadIdx loops,
 * unless the body under them has a barrier: then sequential execution would be wrong, and the
 * outermost threadIdx loop runs one block of concurrent virtual threads, one per combination of
 * thread indices of the nest under it. Each thread has its own variables and its own local
 * allocations; shared allocations inside the nest exist once per block; a barrier waits for all
 * threads of the block. Thread extents are evaluated when the block starts, so they must not depend
 * on variables bound inside the nest (they are constants or symbolic dims in practice).
 */
public final class IRInterpreter {
  private IRInterpreter() {}

  /**
   * Runs {@code f}: {@code args} in the order of {@code f.params()}, {@code scalars} with a value
   * for each of {@code f.scalars()}.
   */
  public static void run(PrimFunc f, List<NDArray> args, Map<Var, Long> scalars) {
    UserError.check(
        args.size() == f.params().size(),
        "%s takes %d buffers, got %d",
        f.name(),
        f.params().size(),
        args.size());
    StmtCompiler c = new StmtCompiler();
    for (Var v : f.scalars()) {
      UserError.check(scalars.containsKey(v), "no value for scalar '%s' of %s", v, f.name());
      c.bind(v);
    }
    Map<Buffer, List<LongNode>> shapes = new LinkedHashMap<>();
    for (Buffer b : f.params()) {
      c.bindBuffer(b);
      shapes.put(b, b.shape().stream().map(c::lng).toList());
    }
    StmtNode body = c.stmt(f.body());

    Frame frame = new Frame(c.longSlotCount(), c.doubleSlotCount(), c.bufferSlotCount());
    for (Var v : f.scalars()) {
      frame.ints[c.bind(v)] = scalars.get(v);
    }
    for (int k = 0; k < args.size(); k++) {
      Buffer b = f.params().get(k);
      NDArray a = args.get(k);
      UserError.check(
          a.dtype() == b.dtype(),
          "%s: buffer '%s' is %s, but the argument is %s",
          f.name(),
          b.name(),
          b.dtype(),
          a.dtype());
      long n = 1;
      List<Long> dims = new ArrayList<>();
      for (LongNode d : shapes.get(b)) {
        long v = d.eval(frame);
        dims.add(v);
        n *= v;
      }
      UserError.check(
          a.size() == n,
          "%s: buffer '%s' has shape %s = %d elements here, but the argument has %d",
          f.name(),
          b.name(),
          dims,
          n,
          a.size());
      frame.mems[c.bufferSlot(b)] = new Mem(b.name(), b.dtype(), a.segment(), a.size());
    }
    body.exec(frame);
  }
}
