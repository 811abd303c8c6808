package dev.kernelgen.schedule;

import static dev.kernelgen.te.TE.*;

import dev.kernelgen.te.IterVar;
import dev.kernelgen.te.Reducer;
import dev.kernelgen.te.Tensor;
import dev.kernelgen.te.Var;
import dev.kernelgen.testing.Check;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * Corners of bound inference and loop construction that the per-primitive tests do not reach:
 * reduce axes that do not start at 0, strided, clamped and downsampled reads of an attached
 * producer, a reduction attached at a reduce loop, conditional reductions, symbolic reduce extents.
 */
class ScheduleEdgeCaseTest {
  private static final Map<Var, Long> NO_DIMS = Map.of();

  @Test
  void splitOfAReduceAxisThatStartsAboveZero() {
    Tensor a = placeholder("A", FLOAT32, 6, 12);
    IterVar k = reduceAxis(2, 9, "k");
    Tensor b = compute("B", shape(6), i -> sum(a.at(i, k.var()), k));
    Schedule s = Schedule.create(b);
    Stage sb = s.stage(b);
    Stage.Split ks = sb.split(k, 4);
    sb.reorder(ks.outer(), sb.axis(0), ks.inner());
    Check.check(s, NO_DIMS);
  }

  @Test
  void producerAttachedAtASplitReduceAxisThatStartsAboveZero() {
    Tensor a = placeholder("A", FLOAT32, 6, 12);
    Tensor a2 = compute("A2", shape(6, 12), (i, j) -> a.at(i, j).mul(a.at(i, j)));
    IterVar k = reduceAxis(3, 8, "k");
    Tensor b = compute("B", shape(6), i -> sum(a2.at(i, k.var()), k));
    Schedule s = Schedule.create(b);
    Stage sb = s.stage(b);
    Stage.Split ks = sb.split(k, 3);
    s.stage(a2).computeAt(sb, ks.outer());
    Check.check(s, NO_DIMS);
  }

  @Test
  void stridedReadOfAnAttachedProducer() {
    Tensor a = placeholder("A", FLOAT32, 40);
    Tensor b = compute("B", shape(40), i -> a.at(i).add(1.0f));
    Tensor c = compute("C", shape(19), i -> b.at(i.mul(2)).add(b.at(i.mul(2).add(2))));
    Schedule s = Schedule.create(c);
    Stage sc = s.stage(c);
    Stage.Split x = sc.split(sc.axis(0), 4);
    s.stage(b).computeAt(sc, x.outer());
    Check.check(s, NO_DIMS);
  }

  @Test
  void downsampledReadOfAnAttachedProducer() {
    Tensor a = placeholder("A", FLOAT32, 10);
    Tensor b = compute("B", shape(10), i -> a.at(i).mul(3.0f));
    Tensor c = compute("C", shape(19), i -> b.at(i.floordiv(2)).add(b.at(i.add(1).floordiv(2))));
    Schedule s = Schedule.create(c);
    Stage sc = s.stage(c);
    Stage.Split x = sc.split(sc.axis(0), 3);
    s.stage(b).computeAt(sc, x.outer());
    Check.check(s, NO_DIMS);
    s.stage(b).computeAt(sc, x.inner());
    Check.check(s, NO_DIMS);
  }

  @Test
  void clampedReadOfAnAttachedProducer() {
    Tensor a = placeholder("A", FLOAT32, 17);
    Tensor b = compute("B", shape(17), i -> a.at(i).sub(0.5f));
    Tensor c =
        compute(
            "C",
            shape(17),
            i -> b.at(maximum(i.sub(1), i32(0))).add(b.at(minimum(i.add(1), i32(16)))));
    Schedule s = Schedule.create(c);
    Stage sc = s.stage(c);
    Stage.Split x = sc.split(sc.axis(0), 5);
    s.stage(b).computeAt(sc, x.outer());
    Check.check(s, NO_DIMS);
  }

  @Test
  void readBeforeTheStartOfAnAttachedProducerUnderASelect() {
    Tensor a = placeholder("A", FLOAT32, 13);
    Tensor b = compute("B", shape(13), i -> a.at(i).mul(2.0f));
    Tensor c = compute("C", shape(13), i -> select(i.gt(0), b.at(i.sub(1)), 0.0f).add(b.at(i)));
    Schedule s = Schedule.create(c);
    Stage sc = s.stage(c);
    Stage.Split x = sc.split(sc.axis(0), 4);
    s.stage(b).computeAt(sc, x.outer());
    Check.check(s, NO_DIMS);
  }

  @Test
  void reductionAttachedAtAReduceLoopOfItsConsumer() {
    Tensor a = placeholder("A", FLOAT32, 5, 7, 3);
    IterVar r = reduceAxis(3, "r");
    Tensor p = compute("P", shape(5, 7), (i, j) -> sum(a.at(i, j, r.var()), r));
    IterVar k = reduceAxis(7, "k");
    Tensor c = compute("C", shape(5), i -> max(p.at(i, k.var()), k));
    Schedule s = Schedule.create(c);
    Stage sc = s.stage(c);
    Stage.Split ks = sc.split(k, 3);
    s.stage(p).computeAt(sc, ks.outer());
    Check.check(s, NO_DIMS);
    s.stage(p).computeAt(sc, ks.inner());
    Check.check(s, NO_DIMS);
  }

  @Test
  void conditionalReductionWithSplitAxes() {
    Tensor a = placeholder("A", FLOAT32, 9, 11);
    IterVar k = reduceAxis(11, "k");
    Tensor b =
        compute(
            "B",
            shape(9),
            i -> reduceWhere(Reducer.sum(FLOAT32), a.at(i, k.var()), k.var().le(i), k));
    Schedule s = Schedule.create(b);
    Stage sb = s.stage(b);
    Stage.Split ks = sb.split(k, 4);
    Stage.Split is = sb.split(sb.axis(0), 2);
    sb.reorder(ks.outer(), is.outer(), ks.inner(), is.inner());
    Check.check(s, NO_DIMS);
  }

  @Test
  void symbolicReduceExtentSplit() {
    Var n = var("n");
    Tensor a = placeholder("A", FLOAT32, 4, n);
    IterVar k = reduceAxis(n, "k");
    Tensor b = compute("B", shape(4), i -> sum(a.at(i, k.var()), k));
    Schedule s = Schedule.create(b);
    Stage sb = s.stage(b);
    Stage.Split ks = sb.split(k, 8);
    sb.reorder(ks.outer(), sb.axis(0), ks.inner());
    Check.check(s, Map.of(n, 21L));
    Check.check(s, Map.of(n, 3L));
  }

  @Test
  void attachedAtAFusedLoop() {
    Tensor a = placeholder("A", FLOAT32, 7, 9);
    Tensor b = compute("B", shape(7, 9), (i, j) -> a.at(i, j).add(2.0f));
    Tensor c = compute("C", shape(7, 8), (i, j) -> b.at(i, j).mul(b.at(i, j.add(1))));
    Schedule s = Schedule.create(c);
    Stage sc = s.stage(c);
    IterVar f = sc.fuse(sc.axis(0), sc.axis(1));
    Stage.Split sp = sc.split(f, 5);
    s.stage(b).computeAt(sc, sp.outer());
    Check.check(s, NO_DIMS);
    s.stage(b).computeAt(sc, sp.inner());
    Check.check(s, NO_DIMS);
  }

  @Test
  void attachedInsideAReorderedSplit() {
    // The inner part of a split runs outside its outer part: the producer is computed at the
    // inner loop, so its region spans every outer iteration.
    Tensor a = placeholder("A", FLOAT32, 22);
    Tensor b = compute("B", shape(22), i -> a.at(i).add(1.0f));
    Tensor c = compute("C", shape(20), i -> b.at(i).add(b.at(i.add(2))));
    Schedule s = Schedule.create(c);
    Stage sc = s.stage(c);
    Stage.Split x = sc.split(sc.axis(0), 6);
    sc.reorder(x.inner(), x.outer());
    s.stage(b).computeAt(sc, x.inner());
    Check.check(s, NO_DIMS);
  }

  @Test
  void cacheWriteAttachedWithTheReductionOutside() {
    Tensor a = placeholder("A", FLOAT32, 10, 6);
    Tensor b = placeholder("B", FLOAT32, 6, 7);
    IterVar k = reduceAxis(6, "k");
    Tensor c = compute("C", shape(10, 7), (i, j) -> sum(a.at(i, k.var()).mul(b.at(k.var(), j)), k));
    Schedule s = Schedule.create(c);
    Tensor cl = s.cacheWrite(c, "local");
    Stage sc = s.stage(c);
    Stage.Split x = sc.split(sc.axis(0), 3);
    Stage scl = s.stage(cl);
    scl.reorder(scl.reduceAxis(0), scl.axis(0), scl.axis(1));
    scl.computeAt(sc, x.outer());
    Check.check(s, NO_DIMS);
  }

  @Test
  void producerWithTwoConsumersAttachedAtTheOuterOne() {
    // B is read by C and by D; D reads C and is computed at root; C and B are computed at D's
    // loop, C after B.
    Tensor a = placeholder("A", FLOAT32, 14);
    Tensor b = compute("B", shape(14), i -> a.at(i).mul(2.0f));
    Tensor c = compute("C", shape(13), i -> b.at(i).add(b.at(i.add(1))));
    Tensor d = compute("D", shape(12), i -> c.at(i).sub(b.at(i.add(2))).add(c.at(i.add(1))));
    Schedule s = Schedule.create(d);
    Stage sd = s.stage(d);
    Stage.Split x = sd.split(sd.axis(0), 5);
    s.stage(c).computeAt(sd, x.inner());
    s.stage(b).computeAt(sd, x.outer());
    Check.check(s, NO_DIMS);
    s.stage(b).computeAt(sd, x.inner());
    Check.check(s, NO_DIMS);
  }
}
