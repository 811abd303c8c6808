package dev.kernelgen.te;

import static dev.kernelgen.te.TE.FLOAT32;
import static dev.kernelgen.te.TE.compute;
import static dev.kernelgen.te.TE.placeholder;
import static dev.kernelgen.te.TE.shape;
import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** The DAG walk that schedules, operator checks, the oracle and rewrites share. */
class TensorGraphTest {
  @Test
  void producersComeBeforeConsumersEachOnceInTheOrderOfTheWalk() {
    Tensor a = placeholder("A", FLOAT32, 8);
    Tensor b = placeholder("B", FLOAT32, 8);
    Tensor sum = compute("Sum", shape(8), i -> a.at(i).add(b.at(i)));
    Tensor twice = compute("Twice", shape(8), i -> sum.at(i).add(sum.at(i)));
    Tensor diff = compute("Diff", shape(8), i -> twice.at(i).sub(a.at(i)));
    Tensor other = compute("Other", shape(8), i -> b.at(i).mul(2f));
    assertThat(TensorGraph.producersFirst(List.of(diff, other)))
        .containsExactly(a, b, sum, twice, diff, other);
    // An output that another output reads is listed once, where the walk first finishes it.
    assertThat(TensorGraph.producersFirst(List.of(diff, twice)))
        .containsExactly(a, b, sum, twice, diff);
  }

  @Test
  void aLeafIsListedButItsProducersAreNotWalked() {
    Tensor a = placeholder("A", FLOAT32, 8);
    Tensor sum = compute("Sum", shape(8), i -> a.at(i).add(1f));
    Tensor out = compute("Out", shape(8), i -> sum.at(i).mul(3f));
    assertThat(TensorGraph.producersFirst(List.of(out), Set.of(sum))).containsExactly(sum, out);
  }

  @Test
  void aLongChainOfStagesDoesNotExhaustTheStack() {
    // The recursive walks this replaced (the schedule's, the operator check's) overflowed a 1 MB
    // thread stack, the JVM's default, at this depth.
    Tensor t = placeholder("X", FLOAT32, 4);
    int stages = 200_000;
    for (int k = 0; k < stages; k++) {
      Tensor in = t;
      t = compute("S" + k, shape(4), i -> in.at(i).add(1f));
    }
    List<Tensor> order = TensorGraph.producersFirst(List.of(t));
    assertThat(order).hasSize(stages + 1);
    assertThat(order.get(0).name()).isEqualTo("X");
    assertThat(order.get(stages)).isSameAs(t);
  }
}
