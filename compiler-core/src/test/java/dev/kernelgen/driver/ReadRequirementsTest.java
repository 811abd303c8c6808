package dev.kernelgen.driver;

import static dev.kernelgen.te.TE.FLOAT32;
import static dev.kernelgen.te.TE.compute;
import static dev.kernelgen.te.TE.placeholder;
import static dev.kernelgen.te.TE.reduceAxis;
import static dev.kernelgen.te.TE.select;
import static dev.kernelgen.te.TE.shape;
import static dev.kernelgen.te.TE.sum;
import static dev.kernelgen.te.TE.var;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.kernelgen.arith.Simplifier;
import dev.kernelgen.diag.UserError;
import dev.kernelgen.driver.LibraryModel.Requirement;
import dev.kernelgen.spec.OperatorDef;
import dev.kernelgen.te.IterVar;
import dev.kernelgen.te.Tensor;
import dev.kernelgen.te.Var;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The conditions on the dims that keep an operator's reads inside their tensors. */
class ReadRequirementsTest {
  @Test
  void aBroadcastOverDimsWrittenApartRequiresTheReadDimToCoverTheAxis() {
    Var n = var("n");
    Var m = var("m");
    Var k = var("k");
    Tensor a = placeholder("a", FLOAT32, n, m);
    Tensor b = placeholder("b", FLOAT32, k);
    OperatorDef def =
        OperatorDef.of(List.of(a, b), compute("Y", shape(n, m), (i, j) -> a.at(i, j).add(b.at(j))));
    List<Requirement> rs = ReadRequirements.of(def);
    assertThat(rs).hasSize(1);
    assertThat(rs.get(0).what())
        .isEqualTo("compute 'Y' reads b[j]: index 0 of 'b' runs 0..(m - 1), past dim 0 = k");
    Requirement r = rs.get(0);
    assertThat(Simplifier.evaluate(r.holds(), Map.of(n, 2L, m, 16L, k, 16L))).isEqualTo(1);
    assertThat(Simplifier.evaluate(r.holds(), Map.of(n, 2L, m, 16L, k, 1L))).isEqualTo(0);
    // Nothing is read when the output is empty.
    assertThat(Simplifier.evaluate(r.holds(), Map.of(n, 0L, m, 16L, k, 1L))).isEqualTo(1);
  }

  @Test
  void readsTheDimsAlreadyBoundRequireNothing() {
    Var n = var("n");
    Var kd = var("kd");
    Var f = var("f");
    Tensor x = placeholder("x", FLOAT32, n, kd);
    Tensor w = placeholder("w", FLOAT32, kd, f);
    IterVar r = reduceAxis(kd, "r");
    Tensor mm =
        compute("Mm", shape(n, f), (i, j) -> sum(x.at(i, r.var()).mul(w.at(r.var(), j)), r));
    // A flip (n - 1 - i), a shifted window inside its padded extent, a read inside a select.
    Tensor flip = compute("Flip", shape(n, f), (i, j) -> mm.at(n.sub(1).sub(i), j));
    Tensor win =
        compute("Win", shape(n, f.sub(2)), (i, j) -> flip.at(i, j).add(flip.at(i, j.add(2))));
    Tensor guarded =
        compute(
            "Guarded",
            shape(n, f.sub(2)),
            (i, j) -> select(j.lt(3), x.at(i, j.add(100)), win.at(i, j)));
    assertThat(ReadRequirements.of(OperatorDef.of(List.of(x, w), guarded))).isEmpty();
  }

  @Test
  void aReadPastItsTensorAtEveryLaunchIsRefusedAtBuildTime() {
    Var m = var("m");
    Tensor b = placeholder("b", FLOAT32, m);
    OperatorDef def = OperatorDef.of(List.of(b), compute("Next", shape(m), j -> b.at(j.add(1))));
    assertThatThrownBy(() -> ReadRequirements.of(def))
        .isInstanceOf(UserError.class)
        .hasMessage(
            "compute 'Next' reads b[(i + 1)]: index 0 of 'b' runs 1..m, past dim 0 = m at every"
                + " launch; a read that may leave its tensor goes inside a select that tests its"
                + " bounds");
  }
}
