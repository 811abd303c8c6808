package dev.kernelgen.te;

import dev.kernelgen.diag.UserError;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Deque;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Set;

/**
 * The walk of a tensor-expression DAG that the schedule, the operator's argument checks, the oracle
 * and the algorithm rewrites share: producers before consumers, each tensor once.
 */
public final class TensorGraph {
  private TensorGraph() {}

  /** A tensor being walked: its inputs, and the next of them to walk. */
  private record Frame(Tensor tensor, List<Tensor> inputs, int next) {}

  /**
   * Every tensor that {@code outputs} read, directly or not, and the outputs themselves: producers
   * before consumers, each once, in the order of a depth-first walk from the outputs in order (an
   * operation's inputs in the order it lists them). Iterative, so a long chain of stages does not
   * exhaust the stack.
   *
   * @throws UserError where a tensor depends on itself
   */
  public static List<Tensor> producersFirst(List<Tensor> outputs) {
    return producersFirst(outputs, Set.of());
  }

  /**
   * As above, not walking into the producers of the tensors in {@code leaves} (given values: the
   * oracle's inputs), which are listed themselves.
   */
  public static List<Tensor> producersFirst(List<Tensor> outputs, Set<Tensor> leaves) {
    Set<Tensor> done = Collections.newSetFromMap(new IdentityHashMap<>());
    Set<Tensor> onPath = Collections.newSetFromMap(new IdentityHashMap<>());
    List<Tensor> order = new ArrayList<>();
    for (Tensor root : outputs) {
      if (done.contains(root)) {
        continue;
      }
      Deque<Frame> stack = new ArrayDeque<>();
      stack.push(enter(root, leaves, onPath));
      while (!stack.isEmpty()) {
        Frame f = stack.pop();
        if (f.next() < f.inputs().size()) {
          stack.push(new Frame(f.tensor(), f.inputs(), f.next() + 1));
          Tensor in = f.inputs().get(f.next());
          if (!done.contains(in)) {
            stack.push(enter(in, leaves, onPath));
          }
        } else {
          onPath.remove(f.tensor());
          done.add(f.tensor());
          order.add(f.tensor());
        }
      }
    }
    return order;
  }

  private static Frame enter(Tensor t, Set<Tensor> leaves, Set<Tensor> onPath) {
    UserError.check(onPath.add(t), "tensor '%s' depends on itself", t.name());
    return new Frame(t, leaves.contains(t) ? List.of() : t.op().inputs(), 0);
  }
}
