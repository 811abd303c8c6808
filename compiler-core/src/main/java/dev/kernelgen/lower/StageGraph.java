package dev.kernelgen.lower;

import dev.kernelgen.diag.UserError;
import dev.kernelgen.schedule.AttachType;
import dev.kernelgen.schedule.Schedule;
import dev.kernelgen.schedule.Stage;
import dev.kernelgen.te.Expr;
import dev.kernelgen.te.ExprMutator;
import dev.kernelgen.te.ExprVisitor;
import dev.kernelgen.te.IterVar;
import dev.kernelgen.te.Substitute;
import dev.kernelgen.te.Tensor;
import dev.kernelgen.te.TensorRead;
import dev.kernelgen.te.Var;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The stages that get loop nests (computed, not inlined), in producer-to-consumer order, with their
 * bodies after inlining: the first step of lowering, and what later steps read.
 */
final class StageGraph {
  final Schedule schedule;
  final List<Stage> stages = new ArrayList<>();
  final Map<Stage, Expr> bodies = new LinkedHashMap<>();
  private final Map<Tensor, Stage> byTensor = new HashMap<>();

  private StageGraph(Schedule schedule) {
    this.schedule = schedule;
  }

  /** Inlines the stages marked compute_inline into their readers. */
  static StageGraph inline(Schedule schedule) {
    StageGraph g = new StageGraph(schedule);
    Map<Tensor, Stage> inlined = new HashMap<>();
    for (Stage s : schedule.stages()) {
      if (s.isPlaceholder()) {
        continue;
      }
      Expr body = g.substituteInlined(s.body(), inlined, g.bodies);
      if (s.attachType() == AttachType.INLINE) {
        inlined.put(s.tensor(), s);
        g.bodies.put(s, body);
      } else {
        g.stages.add(s);
        g.bodies.put(s, body);
        g.byTensor.put(s.tensor(), s);
      }
    }
    for (Stage s : new ArrayList<>(g.bodies.keySet())) {
      if (s.attachType() == AttachType.INLINE) {
        g.bodies.remove(s);
      }
    }
    for (Stage s : g.stages) {
      if (s.attachType() == AttachType.SCOPE && g.stages.contains(s.attachStage())) {
        UserError.check(
            !g.reads(s.attachStage(), s.tensor()).isEmpty()
                || g.readers(s).stream().allMatch(r -> g.nestedIn(r, s.attachStage())),
            "compute_at of '%s' into '%s': '%s' reads it only through stages that are not"
                + " inlined (%s); inline them or compute '%s' at one of them",
            s.name(),
            s.attachStage().name(),
            s.attachStage().name(),
            g.readers(s).stream().map(Stage::name).toList(),
            s.name());
      }
      if (s.attachType() == AttachType.SCOPE) {
        UserError.check(
            g.stages.contains(s.attachStage()),
            "compute_at of '%s' into '%s', which is inlined and has no loops",
            s.name(),
            s.attachStage().name());
      }
    }
    return g;
  }

  private Expr substituteInlined(Expr body, Map<Tensor, Stage> inlined, Map<Stage, Expr> done) {
    if (inlined.isEmpty()) {
      return body;
    }
    return new ExprMutator() {
      @Override
      public Expr mutate(Expr e) {
        Expr m = mutateChildren(e);
        if (m instanceof TensorRead r && inlined.containsKey(r.tensor())) {
          Stage p = inlined.get(r.tensor());
          Map<Var, Expr> sub = new HashMap<>();
          List<IterVar> axis = p.axis();
          for (int d = 0; d < axis.size(); d++) {
            sub.put(axis.get(d).var(), r.indices().get(d));
          }
          return Substitute.apply(done.get(p), sub);
        }
        return m;
      }
    }.mutate(body);
  }

  /** Whether {@code s} is computed inside a loop of {@code parent}, directly or transitively. */
  boolean nestedIn(Stage s, Stage parent) {
    for (Stage p = s.attachStage(); p != null; p = p.attachStage()) {
      if (p == parent) {
        return true;
      }
    }
    return false;
  }

  Expr body(Stage s) {
    return bodies.get(s);
  }

  /** The stage computing {@code t}, or null for placeholders. */
  Stage stageOf(Tensor t) {
    return byTensor.get(t);
  }

  /** The (non-inlined) stages whose bodies read {@code s}'s tensor. */
  List<Stage> readers(Stage s) {
    List<Stage> out = new ArrayList<>();
    for (Stage c : stages) {
      if (!reads(c, s.tensor()).isEmpty()) {
        out.add(c);
      }
    }
    return out;
  }

  /** The reads of {@code t} in {@code c}'s body. */
  List<TensorRead> reads(Stage c, Tensor t) {
    List<TensorRead> out = new ArrayList<>();
    new ExprVisitor() {
      @Override
      public void visit(Expr e) {
        if (e instanceof TensorRead r && r.tensor() == t) {
          out.add(r);
        }
        super.visit(e);
      }
    }.visit(bodies.get(c));
    return out;
  }

  /** Stages attached at loop {@code iv} of {@code parent}, in producer-to-consumer order. */
  List<Stage> attachedAt(Stage parent, IterVar iv) {
    List<Stage> out = new ArrayList<>();
    for (Stage s : stages) {
      if (s.attachType() == AttachType.SCOPE
          && s.attachStage() == parent
          && s.attachIterVar() == iv) {
        out.add(s);
      }
    }
    return out;
  }
}
