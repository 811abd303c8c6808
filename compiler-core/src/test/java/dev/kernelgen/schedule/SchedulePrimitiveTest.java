package dev.kernelgen.schedule;

import static dev.kernelgen.te.TE.*;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.kernelgen.annotations.Target;
import dev.kernelgen.lower.Lower;
import dev.kernelgen.te.IterVar;
import dev.kernelgen.te.Tensor;
import dev.kernelgen.te.Var;
import dev.kernelgen.testing.Check;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * One test per schedule primitive: the scheduled operator, lowered and run through the IR
 * interpreter, generated C and generated Java, equals the tensor-expression oracle. Shapes are
 * chosen so that the split factors do not divide them.
 */
class SchedulePrimitiveTest {
  private static final Map<Var, Long> NO_DIMS = Map.of();

  private static Tensor a2() {
    return placeholder("A", FLOAT32, 23, 17);
  }

  /** {@code B = A * 2 + 1} over 23x17. */
  private static Tensor elementwise(Tensor a) {
    return compute("B", shape(23, 17), (i, j) -> a.at(i, j).mul(2.0f).add(1.0f));
  }

  /** {@code C[i, j] = sum_k A[i, k] * B[k, j]}, 13x11 times 11x9 (the k loop is 11 long). */
  private record MatMul(Tensor a, Tensor b, IterVar k, Tensor c) {
    static MatMul make() {
      Tensor a = placeholder("A", FLOAT32, 13, 11);
      Tensor b = placeholder("B", FLOAT32, 11, 9);
      IterVar k = reduceAxis(11, "k");
      Tensor c =
          compute("C", shape(13, 9), (i, j) -> sum(a.at(i, k.var()).mul(b.at(k.var(), j)), k));
      return new MatMul(a, b, k, c);
    }

    /** C accumulated in a local cache per 4x4 tile of C (cache_write, attached at the tile). */
    Stage localTile(Schedule s) {
      Tensor cl = s.cacheWrite(c, "local");
      Stage sc = s.stage(c);
      Stage.Tile t = sc.tile(sc.axis(0), sc.axis(1), 4, 4);
      Stage scl = s.stage(cl);
      scl.computeAt(sc, t.yOuter());
      return scl;
    }
  }

  /** A three-point horizontal blur of a 23x17 image (valid region: 23x15). */
  private static Tensor blurX(Tensor a) {
    return compute(
        "BlurX",
        shape(23, 15),
        (i, j) -> a.at(i, j).add(a.at(i, j.add(1))).add(a.at(i, j.add(2))).mul(1.0f / 3));
  }

  // ---- split ----

  @Test
  void splitByFactorThatDoesNotDivide() {
    Tensor b = elementwise(a2());
    Schedule s = Schedule.create(b);
    Stage sb = s.stage(b);
    sb.split(sb.axis(0), 5);
    sb.split(sb.axis(1), 4);
    Check.check(s, NO_DIMS);
  }

  @Test
  void splitByFactorLargerThanTheExtent() {
    Tensor a = placeholder("A", FLOAT32, 37);
    Tensor b = compute("B", shape(37), i -> a.at(i).add(1.0f));
    Schedule s = Schedule.create(b);
    s.stage(b).split(s.stage(b).axis(0), 64);
    Check.check(s, NO_DIMS);
  }

  @Test
  void splitByNparts() {
    Tensor a = placeholder("A", FLOAT32, 37);
    Tensor b = compute("B", shape(37), i -> a.at(i).mul(3.0f));
    Schedule s = Schedule.create(b);
    Stage sb = s.stage(b);
    Stage.Split sp = sb.splitNparts(sb.axis(0), 4);
    // A split of the inner part again: the guard must still be on the root axis.
    sb.split(sp.inner(), 3);
    Check.check(s, NO_DIMS);
  }

  @Test
  void splitOfASplitOuterLoop() {
    Tensor b = elementwise(a2());
    Schedule s = Schedule.create(b);
    Stage sb = s.stage(b);
    Stage.Split sp = sb.split(sb.axis(0), 4);
    sb.split(sp.outer(), 3);
    Check.check(s, NO_DIMS);
  }

  @Test
  void splitOfAReduceAxis() {
    MatMul m = MatMul.make();
    Schedule s = Schedule.create(m.c());
    Stage sc = s.stage(m.c());
    sc.split(sc.reduceAxis(0), 4);
    Check.check(s, NO_DIMS);
  }

  @Test
  void splitOfASymbolicExtent() {
    Var n = var("n");
    Tensor a = placeholder("A", FLOAT32, n, 7);
    Tensor b = compute("B", shape(n, 7), (i, j) -> a.at(i, j).mul(a.at(i, j)));
    Schedule s = Schedule.create(b);
    Stage sb = s.stage(b);
    Stage.Split sp = sb.split(sb.axis(0), 8);
    sb.split(sp.inner(), 3);
    Check.check(s, Map.of(n, 29L));
    Check.check(s, Map.of(n, 5L));
    Check.check(s, Map.of(n, 24L));
  }

  @Test
  void splitNpartsOfASymbolicExtent() {
    Var n = var("n");
    Tensor a = placeholder("A", FLOAT32, n);
    Tensor b = compute("B", shape(n), i -> a.at(i).add(2.0f));
    Schedule s = Schedule.create(b);
    s.stage(b).splitNparts(s.stage(b).axis(0), 3);
    Check.check(s, Map.of(n, 31L));
    Check.check(s, Map.of(n, 2L));
  }

  // ---- tile, fuse, reorder ----

  @Test
  void tile() {
    Tensor b = elementwise(a2());
    Schedule s = Schedule.create(b);
    Stage sb = s.stage(b);
    sb.tile(sb.axis(0), sb.axis(1), 4, 5);
    Check.check(s, NO_DIMS);
  }

  @Test
  void tileOfAMatmulWithTheReductionInside() {
    MatMul m = MatMul.make();
    Schedule s = Schedule.create(m.c());
    Stage sc = s.stage(m.c());
    Stage.Tile t = sc.tile(sc.axis(0), sc.axis(1), 4, 4);
    Stage.Split k = sc.split(sc.reduceAxis(0), 3);
    sc.reorder(t.xOuter(), t.yOuter(), k.outer(), t.xInner(), k.inner(), t.yInner());
    Check.check(s, NO_DIMS);
  }

  @Test
  void fuse() {
    Tensor b = elementwise(a2());
    Schedule s = Schedule.create(b);
    Stage sb = s.stage(b);
    IterVar f = sb.fuse(sb.axis(0), sb.axis(1));
    sb.split(f, 10);
    Check.check(s, NO_DIMS);
  }

  @Test
  void fuseOfSplitLoopsThatDoNotDivide() {
    Tensor b = elementwise(a2());
    Schedule s = Schedule.create(b);
    Stage sb = s.stage(b);
    Stage.Split x = sb.split(sb.axis(0), 4);
    Stage.Split y = sb.split(sb.axis(1), 5);
    sb.reorder(x.outer(), y.outer(), x.inner(), y.inner());
    sb.fuse(x.outer(), y.outer());
    sb.fuse(x.inner(), y.inner());
    Check.check(s, NO_DIMS);
  }

  @Test
  void fuseOfReduceAxes() {
    Tensor a = placeholder("A", FLOAT32, 7, 5, 3);
    IterVar r1 = reduceAxis(5, "r1");
    IterVar r2 = reduceAxis(3, "r2");
    Tensor b = compute("B", shape(7), i -> sum(a.at(i, r1.var(), r2.var()), r1, r2));
    Schedule s = Schedule.create(b);
    Stage sb = s.stage(b);
    IterVar f = sb.fuse(r1, r2);
    sb.split(f, 4);
    Check.check(s, NO_DIMS);
  }

  @Test
  void fuseOfASymbolicAxis() {
    Var n = var("n");
    Tensor a = placeholder("A", FLOAT32, n, 6);
    Tensor b = compute("B", shape(n, 6), (i, j) -> a.at(i, j).sub(1.0f));
    Schedule s = Schedule.create(b);
    Stage sb = s.stage(b);
    IterVar f = sb.fuse(sb.axis(0), sb.axis(1));
    sb.split(f, 7);
    Check.check(s, Map.of(n, 11L));
  }

  @Test
  void reorderOfDataAxes() {
    Tensor a = placeholder("A", FLOAT32, 5, 7, 3);
    Tensor b = compute("B", shape(5, 7, 3), (i, j, k) -> a.at(i, j, k).mul(a.at(i, j, k)));
    Schedule s = Schedule.create(b);
    Stage sb = s.stage(b);
    sb.reorder(sb.axis(2), sb.axis(0), sb.axis(1));
    Check.check(s, NO_DIMS);
  }

  @Test
  void reorderOfTheReduceAxisOutsideTheDataAxes() {
    MatMul m = MatMul.make();
    Schedule s = Schedule.create(m.c());
    Stage sc = s.stage(m.c());
    sc.reorder(m.k(), sc.axis(0), sc.axis(1));
    Check.check(s, NO_DIMS);
  }

  @Test
  void reorderOfASplitReduceAxisBetweenSplitDataAxes() {
    MatMul m = MatMul.make();
    Schedule s = Schedule.create(m.c());
    Stage sc = s.stage(m.c());
    Stage.Split i = sc.split(sc.axis(0), 5);
    Stage.Split k = sc.split(m.k(), 4);
    sc.reorder(k.outer(), i.outer(), sc.axis(1), k.inner(), i.inner());
    Check.check(s, NO_DIMS);
  }

  // ---- compute_at ----

  private record Chain(Tensor a, Tensor b, Tensor c) {
    /** B = A * 2 + 1, C = B + B (13 x 10 x 7), both non-divisible by the splits used. */
    static Chain make() {
      Tensor a = placeholder("A", FLOAT32, 13, 10, 7);
      Tensor b = compute("B", shape(13, 10, 7), (i, j, k) -> a.at(i, j, k).mul(2.0f).add(1.0f));
      Tensor c = compute("C", shape(13, 10, 7), (i, j, k) -> b.at(i, j, k).mul(b.at(i, j, k)));
      return new Chain(a, b, c);
    }

    /** B computed at C's outer loop over blocks of 5 rows (a [5][10][7] tile of B per block). */
    Stage producerPerFiveRows(Schedule s) {
      Stage sc = s.stage(c);
      Stage.Split x = sc.split(sc.axis(0), 5);
      Stage sb = s.stage(b);
      sb.computeAt(sc, x.outer());
      return sb;
    }
  }

  @Test
  void computeAtOutermost() {
    Chain ch = Chain.make();
    Schedule s = Schedule.create(ch.c());
    Stage sc = s.stage(ch.c());
    Stage.Split x = sc.split(sc.axis(0), 4);
    s.stage(ch.b()).computeAt(sc, x.outer());
    Check.check(s, NO_DIMS);
  }

  @Test
  void computeAtMiddle() {
    Chain ch = Chain.make();
    Schedule s = Schedule.create(ch.c());
    Stage sc = s.stage(ch.c());
    Stage.Split x = sc.split(sc.axis(0), 4);
    s.stage(ch.b()).computeAt(sc, x.inner());
    Check.check(s, NO_DIMS);
    s.stage(ch.b()).computeAt(sc, sc.axis(1));
    Check.check(s, NO_DIMS);
  }

  @Test
  void computeAtInnermost() {
    Chain ch = Chain.make();
    Schedule s = Schedule.create(ch.c());
    Stage sc = s.stage(ch.c());
    Stage.Split z = sc.split(sc.axis(2), 3);
    s.stage(ch.b()).computeAt(sc, z.inner());
    Check.check(s, NO_DIMS);
  }

  @Test
  void computeAtOfAProducerThatIsItselfSplit() {
    Chain ch = Chain.make();
    Schedule s = Schedule.create(ch.c());
    Stage sc = s.stage(ch.c());
    Stage sb = s.stage(ch.b());
    sb.split(sb.axis(2), 3);
    sb.computeAt(sc, sc.axis(1));
    Check.check(s, NO_DIMS);
  }

  @Test
  void computeAtOfAStencilInfersTheHalo() {
    Tensor a = a2();
    Tensor bx = blurX(a);
    Tensor by =
        compute(
            "BlurY",
            shape(21, 15),
            (i, j) -> bx.at(i, j).add(bx.at(i.add(1), j)).add(bx.at(i.add(2), j)).mul(1.0f / 3));
    Schedule s = Schedule.create(by);
    Stage sy = s.stage(by);
    Stage.Tile t = sy.tile(sy.axis(0), sy.axis(1), 4, 6);
    s.stage(bx).computeAt(sy, t.yOuter());
    Check.check(s, NO_DIMS);
    // At the innermost loop, each point of BlurY needs three points of BlurX.
    s.stage(bx).computeAt(sy, t.yInner());
    Check.check(s, NO_DIMS);
    // At the outer row loop: a band of rows (4 + 2 of halo), all columns.
    s.stage(bx).computeAt(sy, t.xOuter());
    Check.check(s, NO_DIMS);
  }

  @Test
  void computeAtOfAStencilOfASymbolicExtent() {
    Var n = var("n");
    Tensor a = placeholder("A", FLOAT32, n.add(2));
    Tensor b = compute("B", shape(n.add(2)), i -> a.at(i).mul(2.0f));
    Tensor c = compute("C", shape(n), i -> b.at(i).add(b.at(i.add(1))).add(b.at(i.add(2))));
    Schedule s = Schedule.create(c);
    Stage sc = s.stage(c);
    Stage.Split x = sc.split(sc.axis(0), 4);
    s.stage(b).computeAt(sc, x.outer());
    Check.check(s, Map.of(n, 23L));
    Check.check(s, Map.of(n, 3L));
  }

  @Test
  void nestedComputeAtChain() {
    // A -> B -> C -> D, each a 3-point stencil of the previous one; C at D's outer loop, B at C's.
    Tensor a = placeholder("A", FLOAT32, 41);
    Tensor b = compute("B", shape(39), i -> a.at(i).add(a.at(i.add(1))).add(a.at(i.add(2))));
    Tensor c = compute("C", shape(37), i -> b.at(i).sub(b.at(i.add(2))));
    Tensor d = compute("D", shape(35), i -> c.at(i).mul(c.at(i.add(1))).add(c.at(i.add(2))));
    Schedule s = Schedule.create(d);
    Stage sd = s.stage(d);
    Stage sc = s.stage(c);
    Stage.Split x = sd.split(sd.axis(0), 8);
    sc.computeAt(sd, x.outer());
    Stage.Split y = sc.split(sc.axis(0), 3);
    s.stage(b).computeAt(sc, y.outer());
    Check.check(s, NO_DIMS);
    // B directly at D's loop too, outside C's attachment.
    s.stage(b).computeAt(sd, x.outer());
    Check.check(s, NO_DIMS);
  }

  @Test
  void computeAtOfAReductionIntoItsConsumer() {
    MatMul m = MatMul.make();
    Tensor d = compute("D", shape(13, 9), (i, j) -> m.c().at(i, j).add(1.0f));
    Schedule s = Schedule.create(d);
    Stage sd = s.stage(d);
    Stage.Split x = sd.split(sd.axis(0), 4);
    s.stage(m.c()).computeAt(sd, x.outer());
    Check.check(s, NO_DIMS);
    s.stage(m.c()).computeAt(sd, sd.axis(1));
    Check.check(s, NO_DIMS);
  }

  @Test
  void computeAtOfAProducerIntoAReduction() {
    MatMul m = MatMul.make();
    Tensor a2 = compute("A2", shape(13, 11), (i, j) -> m.a().at(i, j).mul(2.0f));
    IterVar k = reduceAxis(11, "k");
    Tensor c =
        compute("C", shape(13, 9), (i, j) -> sum(a2.at(i, k.var()).mul(m.b().at(k.var(), j)), k));
    Schedule s = Schedule.create(c);
    Stage sc = s.stage(c);
    Stage.Split ks = sc.split(k, 4);
    s.stage(a2).computeAt(sc, ks.outer());
    Check.check(s, NO_DIMS);
  }

  // ---- compute_inline, compute_root ----

  @Test
  void computeInlineChain() {
    Tensor a = a2();
    Tensor b = elementwise(a);
    Tensor c = compute("C", shape(23, 17), (i, j) -> exp(b.at(i, j)));
    Tensor d = compute("D", shape(23, 17), (i, j) -> c.at(i, j).add(b.at(i, j)));
    Tensor e = compute("E", shape(23, 15), (i, j) -> d.at(i, j).sub(d.at(i, j.add(2))));
    Schedule s = Schedule.create(e);
    s.stage(b).computeInline();
    s.stage(c).computeInline();
    s.stage(d).computeInline();
    Stage se = s.stage(e);
    se.split(se.axis(1), 4);
    Check.check(s, NO_DIMS);
  }

  @Test
  void computeInlineIntoAReduction() {
    MatMul m = MatMul.make();
    Tensor a2 = compute("A2", shape(13, 11), (i, j) -> m.a().at(i, j).mul(2.0f));
    IterVar k = reduceAxis(11, "k");
    Tensor c =
        compute("C", shape(13, 9), (i, j) -> sum(a2.at(i, k.var()).mul(m.b().at(k.var(), j)), k));
    Schedule s = Schedule.create(c);
    s.stage(a2).computeInline();
    Check.check(s, NO_DIMS);
  }

  @Test
  void computeRootAfterComputeAt() {
    Chain ch = Chain.make();
    Schedule s = Schedule.create(ch.c());
    Stage sc = s.stage(ch.c());
    Stage.Split x = sc.split(sc.axis(0), 4);
    s.stage(ch.b()).computeAt(sc, x.inner());
    s.stage(ch.b()).computeRoot();
    Check.check(s, NO_DIMS);
  }

  @Test
  void computeRootAfterComputeInline() {
    Chain ch = Chain.make();
    Schedule s = Schedule.create(ch.c());
    s.stage(ch.b()).computeInline();
    s.stage(ch.b()).computeRoot();
    Check.check(s, NO_DIMS);
  }

  // ---- caches and scopes ----

  @Test
  void cacheReadLocal() {
    Tensor a = a2();
    Tensor bx = blurX(a);
    Schedule s = Schedule.create(bx);
    Tensor al = s.cacheRead(a, "local", bx);
    Stage sb = s.stage(bx);
    Stage.Split x = sb.split(sb.axis(0), 4);
    s.stage(al).computeAt(sb, x.outer());
    Check.check(s, NO_DIMS);
  }

  @Test
  void cacheReadShared() {
    MatMul m = MatMul.make();
    Schedule s = Schedule.create(m.c());
    Tensor as = s.cacheRead(m.a(), "shared", m.c());
    Tensor bs = s.cacheRead(m.b(), "shared", m.c());
    Stage sc = s.stage(m.c());
    Stage.Tile t = sc.tile(sc.axis(0), sc.axis(1), 4, 4);
    Stage.Split k = sc.split(m.k(), 4);
    sc.reorder(t.xOuter(), t.yOuter(), k.outer(), t.xInner(), t.yInner(), k.inner());
    s.stage(as).computeAt(sc, k.outer());
    s.stage(bs).computeAt(sc, k.outer());
    Check.check(s, NO_DIMS);
  }

  @Test
  void cacheReadAtRoot() {
    Tensor b = elementwise(a2());
    Schedule s = Schedule.create(b);
    s.cacheRead(s.inputs().get(0), "global", b);
    Check.check(s, NO_DIMS);
  }

  @Test
  void cacheWriteOfAMatmulComputedAtAnAxisOfTheOriginal() {
    MatMul m = MatMul.make();
    Schedule s = Schedule.create(m.c());
    Stage scl = m.localTile(s);
    Stage.Split k = scl.split(scl.reduceAxis(0), 3);
    scl.reorder(k.outer(), scl.axis(0), k.inner(), scl.axis(1));
    Check.check(s, NO_DIMS);
  }

  @Test
  void cacheWriteAtRoot() {
    MatMul m = MatMul.make();
    Schedule s = Schedule.create(m.c());
    s.cacheWrite(m.c(), "global");
    Check.check(s, NO_DIMS);
  }

  @Test
  void setScope() {
    Chain ch = Chain.make();
    Schedule s = Schedule.create(ch.c());
    Stage sc = s.stage(ch.c());
    Stage.Split x = sc.split(sc.axis(1), 3);
    s.stage(ch.b()).setScope("local");
    s.stage(ch.b()).computeAt(sc, x.outer());
    Check.check(s, NO_DIMS);
    s.stage(ch.b()).setScope("shared");
    Check.check(s, NO_DIMS);
  }

  @Test
  void reorderStorageOfALocalAccumulator() {
    // A 4x4 tile of C accumulated column-major, the reduction outside the tile's loops.
    MatMul m = MatMul.make();
    Schedule s = Schedule.create(m.c());
    Stage scl = m.localTile(s);
    scl.reorderStorage(scl.axis(1), scl.axis(0));
    scl.reorder(scl.reduceAxis(0), scl.axis(1), scl.axis(0));
    Check.check(s, NO_DIMS);
    // The buffer's strides follow the order: C.local[i, j] is at (i - i0) + (j - j0) * 4.
    String ir = Lower.lower(s, "f", Target.C).body().show();
    assertThat(ir)
        .contains("C.local[(i + (j * 4))] = (C.local[(i + (j * 4))] + ")
        .contains("= C.local[(i.inner + (j.inner * 4))]");
    // Replayed from its trace onto a fresh schedule, it lowers to the same code.
    assertThat(replayedLocalTile(s)).contains("reorder_storage(j, i)");
  }

  /**
   * {@code s}, a schedule of {@link MatMul} with C cached locally, replayed from its trace onto a
   * fresh one: asserts that it lowers to the same code, and returns the replayed trace.
   */
  private static String replayedLocalTile(Schedule s) {
    MatMul fresh = MatMul.make();
    Schedule r = Schedule.create(fresh.c());
    r.cacheWrite(fresh.c(), "local");
    Trace.replay(
        s.trace().steps().stream().filter(st -> !st.primitive().equals("cache_write")).toList(), r);
    assertThat(Lower.lower(r, "f", Target.C).body().show())
        .isEqualTo(Lower.lower(s, "f", Target.C).body().show());
    return r.trace().toString();
  }

  @Test
  void reorderStorageOfAnAttachedProducerReadWithAStride() {
    // B = 2A + 1 stored innermost-axis-first inside the tiles of the consumer.
    Chain ch = Chain.make();
    Schedule s = Schedule.create(ch.c());
    Stage sb = ch.producerPerFiveRows(s);
    sb.reorderStorage(sb.axis(2), sb.axis(0), sb.axis(1));
    Check.check(s, NO_DIMS);
  }

  @Test
  void storageAlignPadsARowStrideAndTheBuffer() {
    // The 4x4 local tile of C stored column-major with its column stride padded from 4 to 5
    // (4k + 1): the buffer grows to 20 elements, the inner dimension keeps stride 1.
    MatMul m = MatMul.make();
    Schedule s = Schedule.create(m.c());
    Stage scl = m.localTile(s);
    scl.reorderStorage(scl.axis(1), scl.axis(0));
    scl.storageAlign(scl.axis(1), 4, 1);
    scl.reorder(scl.reduceAxis(0), scl.axis(1), scl.axis(0));
    Check.check(s, NO_DIMS);
    String ir = Lower.lower(s, "f", Target.C).body().show();
    assertThat(ir)
        .contains("C.local[(i + (j * 5))] = (C.local[(i + (j * 5))] + ")
        .contains("allocate C.local: float32[20] local");
    // Replayed from its trace onto a fresh schedule, it lowers to the same code.
    assertThat(replayedLocalTile(s)).contains("storage_align(j, 4, 1)");
  }

  @Test
  void storageAlignOfTwoDimensionsOfAnAttachedProducer() {
    // B = 2A + 1 computed per 5 rows of C into a [5][10][7] tile, its rows 8 apart instead of 7 and
    // its planes 81 apart instead of 80 (each stride at least the dense one).
    Chain ch = Chain.make();
    Schedule s = Schedule.create(ch.c());
    Stage sb = ch.producerPerFiveRows(s);
    sb.storageAlign(sb.axis(1), 4, 0);
    sb.storageAlign(sb.axis(0), 2, 1);
    Check.check(s, NO_DIMS);
    assertThat(Lower.lower(s, "f", Target.C).body().show()).contains("allocate B: float32[405]");
  }

  @Test
  void storageDeinterleaveStoresADimensionAsPhases() {
    // B's [5][10][7] tile per block of C's rows with its last dimension stored as 2 phases of 4
    // (even k, then odd k): rows 8 apart, B[i][j][k] at i*80 + j*8 + (k%2)*4 + k/2, 400 elements.
    // The producer's loop over k split by 2, the phase outside: each phase stored contiguously.
    Chain ch = Chain.make();
    Schedule s = Schedule.create(ch.c());
    Stage sb = ch.producerPerFiveRows(s);
    sb.storageDeinterleave(sb.axis(2), 2);
    Stage.Split k = sb.split(sb.axis(2), 2);
    sb.reorder(k.inner(), k.outer());
    Check.check(s, NO_DIMS);
    String ir = Lower.lower(s, "f", Target.C).body().show();
    assertThat(ir)
        .contains("allocate B: float32[400]")
        .contains("B[((((i * 80) + (j * 8)) + (k.inner * 4)) + k.outer)] = ")
        .contains("B[((((i.inner * 80) + (j * 8)) + (floormod(k, 2) * 4)) + floordiv(k, 2))]");
    // Replayed from its trace onto a fresh schedule, it lowers to the same code.
    Chain fresh = Chain.make();
    Schedule r = Schedule.create(fresh.c());
    Trace.replay(s.trace().steps(), r);
    assertThat(Lower.lower(r, "f", Target.C).body().show()).isEqualTo(ir);
    assertThat(r.trace().toString()).contains("storage_deinterleave(k, 2)");
  }

  @Test
  void storageDeinterleaveNeedsAFactorOfTwoOrMoreAndAnIntermediateStage() {
    Chain ch = Chain.make();
    Schedule s = Schedule.create(ch.c());
    Stage sb = ch.producerPerFiveRows(s);
    assertThatThrownBy(() -> sb.storageDeinterleave(sb.axis(2), 1))
        .isInstanceOf(dev.kernelgen.diag.UserError.class)
        .hasMessageContaining("storage_deinterleave of 'B' at 'k': factor 1");
    Stage sc = s.stage(ch.c());
    assertThatThrownBy(() -> sc.storageDeinterleave(sc.axis(2), 2))
        .isInstanceOf(dev.kernelgen.diag.UserError.class)
        .hasMessageContaining("it is an output of the schedule");
    Stage.Split split = sb.split(sb.axis(1), 2);
    assertThatThrownBy(() -> sb.storageDeinterleave(split.outer(), 2))
        .isInstanceOf(dev.kernelgen.diag.UserError.class)
        .hasMessageContaining("is not one of its axes");
  }

  // ---- thread bindings ----

  @Test
  void bindBlocksAndThreadsRunSeriallyOnCpu() {
    Tensor b = elementwise(a2());
    Schedule s = Schedule.create(b);
    Stage sb = s.stage(b);
    Stage.Tile t = sb.tile(sb.axis(0), sb.axis(1), 4, 8);
    sb.bind(t.xOuter(), ThreadTag.BLOCK_Y);
    sb.bind(t.yOuter(), ThreadTag.BLOCK_X);
    sb.bind(t.xInner(), ThreadTag.THREAD_Y);
    sb.bind(t.yInner(), ThreadTag.THREAD_X);
    Check.check(s, NO_DIMS);
  }

  @Test
  void bindOfAFusedAxis() {
    Tensor b = elementwise(a2());
    Schedule s = Schedule.create(b);
    Stage sb = s.stage(b);
    IterVar f = sb.fuse(sb.axis(0), sb.axis(1));
    Stage.Split sp = sb.split(f, 32);
    sb.bind(sp.outer(), ThreadTag.BLOCK_X);
    sb.bind(sp.inner(), ThreadTag.THREAD_X);
    Check.check(s, NO_DIMS);
  }

  @Test
  void bindWithALocalProducerAtTheThreadLoop() {
    Chain ch = Chain.make();
    Schedule s = Schedule.create(ch.c());
    Stage sc = s.stage(ch.c());
    IterVar f = sc.fuse(sc.axis(0), sc.axis(1));
    Stage.Split sp = sc.split(f, 16);
    sc.bind(sp.outer(), ThreadTag.BLOCK_X);
    sc.bind(sp.inner(), ThreadTag.THREAD_X);
    s.stage(ch.b()).setScope("local");
    s.stage(ch.b()).computeAt(sc, sp.inner());
    Check.check(s, NO_DIMS);
  }

  @Test
  void vthread() {
    Tensor b = elementwise(a2());
    Schedule s = Schedule.create(b);
    Stage sb = s.stage(b);
    Stage.Split x = sb.split(sb.axis(0), 8);
    Stage.Split v = sb.splitNparts(x.inner(), 2);
    sb.bind(x.outer(), ThreadTag.BLOCK_X);
    sb.bind(v.outer(), ThreadTag.VTHREAD);
    sb.bind(v.inner(), ThreadTag.THREAD_X);
    Check.check(s, NO_DIMS);
  }

  @Test
  void vthreadOfASymbolicExtent() {
    Var n = var("n");
    Tensor a = placeholder("A", FLOAT32, n);
    Tensor b = compute("B", shape(n), i -> a.at(i).add(1.0f));
    Schedule s = Schedule.create(b);
    Stage sb = s.stage(b);
    Stage.Split x = sb.split(sb.axis(0), 4);
    sb.bind(x.outer(), ThreadTag.VTHREAD);
    Check.check(s, Map.of(n, 19L));
  }

  // ---- loop annotations ----

  @Test
  void unrollOfASmallConstantExtent() {
    Tensor b = elementwise(a2());
    Schedule s = Schedule.create(b);
    Stage sb = s.stage(b);
    Stage.Split y = sb.split(sb.axis(1), 4);
    sb.unroll(y.inner());
    Check.check(s, NO_DIMS);
  }

  @Test
  void unrollOfALargeExtentStaysALoop() {
    Tensor a = placeholder("A", FLOAT32, 5, 100);
    Tensor b = compute("B", shape(5, 100), (i, j) -> a.at(i, j).mul(-1.0f));
    Schedule s = Schedule.create(b);
    s.stage(b).unroll(s.stage(b).axis(1));
    Check.check(s, NO_DIMS);
  }

  @Test
  void unrollOfAReduceAxisWithAnAttachedProducer() {
    MatMul m = MatMul.make();
    Schedule s = Schedule.create(m.c());
    Stage sc = s.stage(m.c());
    Stage.Split k = sc.split(m.k(), 3);
    sc.unroll(k.inner());
    sc.unroll(sc.axis(1));
    Check.check(s, NO_DIMS);
  }

  @Test
  void unrollWithALocalAllocationInside() {
    Chain ch = Chain.make();
    Schedule s = Schedule.create(ch.c());
    Stage sc = s.stage(ch.c());
    Stage.Split z = sc.split(sc.axis(2), 2);
    sc.unroll(z.outer());
    s.stage(ch.b()).setScope("local");
    s.stage(ch.b()).computeAt(sc, z.outer());
    Check.check(s, NO_DIMS);
  }

  @Test
  void vectorize() {
    Tensor b = elementwise(a2());
    Schedule s = Schedule.create(b);
    Stage sb = s.stage(b);
    Stage.Split y = sb.split(sb.axis(1), 8);
    sb.vectorize(y.inner());
    Check.check(s, NO_DIMS);
  }

  @Test
  void vectorizeOfAMatmulInnerDataAxis() {
    MatMul m = MatMul.make();
    Schedule s = Schedule.create(m.c());
    Stage sc = s.stage(m.c());
    Stage.Split y = sc.split(sc.axis(1), 4);
    sc.reorder(sc.axis(0), y.outer(), m.k(), y.inner());
    sc.vectorize(y.inner());
    Check.check(s, NO_DIMS);
  }

  @Test
  void parallel() {
    // Big enough that OpenMP really uses threads in the C version.
    Tensor a = placeholder("A", FLOAT32, 67, 129);
    Tensor b = compute("B", shape(67, 129), (i, j) -> sqrt(abs(a.at(i, j))).add(1.0f));
    Schedule s = Schedule.create(b);
    Stage sb = s.stage(b);
    Stage.Split x = sb.split(sb.axis(0), 8);
    sb.parallel(x.outer());
    Check.check(s, NO_DIMS);
  }

  @Test
  void parallelOfAReductionsDataAxis() {
    Tensor a = placeholder("A", FLOAT32, 61, 50);
    Tensor b = placeholder("B", FLOAT32, 50, 45);
    IterVar k = reduceAxis(50, "k");
    Tensor c =
        compute("C", shape(61, 45), (i, j) -> sum(a.at(i, k.var()).mul(b.at(k.var(), j)), k));
    Schedule s = Schedule.create(c);
    Stage sc = s.stage(c);
    IterVar f = sc.fuse(sc.axis(0), sc.axis(1));
    sc.parallel(f);
    Check.check(s, NO_DIMS);
  }

  @Test
  void parallelWithAProducerComputedInside() {
    Tensor a = placeholder("A", FLOAT32, 67, 129);
    Tensor b = compute("B", shape(67, 129), (i, j) -> a.at(i, j).mul(2.0f));
    Tensor c = compute("C", shape(67, 127), (i, j) -> b.at(i, j).add(b.at(i, j.add(2))));
    Schedule s = Schedule.create(c);
    Stage sc = s.stage(c);
    sc.parallel(sc.axis(0));
    s.stage(b).computeAt(sc, sc.axis(0));
    Check.check(s, NO_DIMS);
  }

  @Test
  void pragma() {
    Tensor b = elementwise(a2());
    Schedule s = Schedule.create(b);
    Stage sb = s.stage(b);
    Stage.Split y = sb.split(sb.axis(1), 4);
    sb.pragma(sb.axis(0), "GCC ivdep");
    sb.pragma(y.inner(), "GCC unroll 4");
    Check.check(s, NO_DIMS);
  }

  @Test
  void everythingAtOnceOnAStencilPipeline() {
    Tensor a = placeholder("A", FLOAT32, 29, 31);
    Tensor bx = compute("BX", shape(29, 29), (i, j) -> a.at(i, j).add(a.at(i, j.add(2))));
    Tensor by = compute("BY", shape(27, 29), (i, j) -> bx.at(i, j).add(bx.at(i.add(2), j)));
    Tensor out = compute("Out", shape(27, 29), (i, j) -> maximum(by.at(i, j), f32(0)));
    Schedule s = Schedule.create(out);
    Stage so = s.stage(out);
    s.stage(by).computeInline();
    Stage.Tile t = so.tile(so.axis(0), so.axis(1), 8, 8);
    IterVar f = so.fuse(t.xOuter(), t.yOuter());
    so.parallel(f);
    Stage.Split v = so.split(t.yInner(), 4);
    so.vectorize(v.inner());
    so.unroll(v.outer());
    s.stage(bx).computeAt(so, f);
    Stage sbx = s.stage(bx);
    Stage.Split bv = sbx.split(sbx.axis(1), 4);
    sbx.vectorize(bv.inner());
    Check.check(s, NO_DIMS);
  }

  @Test
  void scheduleWithTwoOutputs() {
    Tensor a = a2();
    Tensor b = elementwise(a);
    Tensor c = compute("C", shape(23, 17), (i, j) -> b.at(i, j).mul(b.at(i, j)));
    Tensor d = compute("D", shape(23, 17), (i, j) -> b.at(i, j).sub(a.at(i, j)));
    Schedule s = Schedule.create(c, d);
    s.stage(c).split(s.stage(c).axis(0), 6);
    s.stage(d).split(s.stage(d).axis(1), 5);
    Check.check(s, List.of(a, c, d), NO_DIMS, Check.ALL, 1e-4, 1e-4);
  }
}
