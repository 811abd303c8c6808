package dev.kernelgen.spec;

import static dev.kernelgen.te.TE.FLOAT32;
import static dev.kernelgen.te.TE.compute;
import static dev.kernelgen.te.TE.placeholder;
import static dev.kernelgen.te.TE.shape;
import static dev.kernelgen.te.TE.var;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.kernelgen.annotations.Target;
import dev.kernelgen.diag.UserError;
import dev.kernelgen.lower.Lower;
import dev.kernelgen.te.Tensor;
import dev.kernelgen.te.Var;
import dev.kernelgen.topi.DefaultSchedules;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class SpecApiTest {
  @Test
  void knobsTakeTheFirstChoiceUnlessConfiguredAndRecordTheSpace() {
    Knobs k = Knobs.defaults();
    assertThat(k.knob("tile", 8, 4, 16)).isEqualTo(8);
    assertThat(k.knob("tile", 8, 4, 16)).isEqualTo(8);
    assertThat(k.space()).isEqualTo(Map.of("tile", List.of(8, 4, 16)));
    assertThat(k.chosen()).isEqualTo(Map.of("tile", 8));
    assertThat(k.isConfigured()).isFalse();

    Knobs c = Knobs.configured(Map.of("tile", 16));
    assertThat(c.knob("tile", 8, 4, 16)).isEqualTo(16);
    assertThat(c.isConfigured()).isTrue();
  }

  @Test
  void aDeclaredKnobIsInTheSpaceButNotRead() {
    // A branch not taken declares its knobs: the space is the same, the knobs read differ.
    Knobs k = Knobs.configured(Map.of("tile", 4, "band", 2));
    assertThat(k.declare("tile", 8, 4, 16)).isEqualTo(4);
    assertThat(k.knob("band", 0, 2)).isEqualTo(2);
    assertThat(k.space()).isEqualTo(Map.of("tile", List.of(8, 4, 16), "band", List.of(0, 2)));
    assertThat(k.chosen()).isEqualTo(Map.of("band", 2));
    assertThat(k.unused()).isEmpty();
    assertThatThrownBy(() -> Knobs.configured(Map.of("tile", 3)).declare("tile", 8, 4))
        .isInstanceOf(UserError.class)
        .hasMessageContaining("configured to 3, which is not among its choices [8, 4]");
  }

  @Test
  void knobMisuseIsAUserError() {
    Knobs k = Knobs.defaults();
    k.knob("tile", 8, 4);
    assertThatThrownBy(() -> k.knob("tile", 8, 16))
        .isInstanceOf(UserError.class)
        .hasMessageContaining("knob 'tile' is asked twice with different choices");
    assertThatThrownBy(() -> k.knob("empty")).hasMessageContaining("has no choices");
    assertThatThrownBy(() -> Knobs.configured(Map.of("tile", 3)).knob("tile", 8, 4))
        .hasMessageContaining("configured to 3, which is not among its choices [8, 4]");
  }

  @Test
  void operatorDefChecksItsArguments() {
    Var n = var("n");
    Tensor a = placeholder("a", FLOAT32, n);
    Tensor b = placeholder("b", FLOAT32, n);
    Tensor c = compute("c", shape(n), i -> a.at(i).add(b.at(i)));
    OperatorDef op = OperatorDef.of(List.of(a, b), c);
    assertThat(op.args()).containsExactly(a, b, c);
    assertThat(op.dims()).containsExactly(n);
    assertThat(op.tensor("c")).isSameAs(c);
    assertThatThrownBy(() -> OperatorDef.of(List.of(a), c))
        .isInstanceOf(UserError.class)
        .hasMessageContaining("placeholder 'b', which is not among the inputs");
    Tensor unused = placeholder("u", FLOAT32, n);
    assertThatThrownBy(() -> OperatorDef.of(List.of(a, b, unused), c))
        .hasMessageContaining("input 'u' is not read by any output");
  }

  @Test
  void defaultSchedulesLowerForEveryTarget() {
    Var n = var("n");
    Tensor a = placeholder("a", FLOAT32, n, n);
    Tensor twice = compute("twice", shape(n, n), (i, j) -> a.at(i, j).mul(2f));
    Tensor out = compute("out", shape(n, n), (i, j) -> twice.at(i, j).add(1f));
    OperatorDef op = OperatorDef.of(List.of(a), out);
    for (Target t : Target.values()) {
      Knobs k = Knobs.defaults();
      var s = DefaultSchedules.forTarget(t, op, k);
      assertThat(s.stage(twice).attachType().name()).isEqualTo("INLINE");
      assertThat(Lower.lower(s, "f", op.args(), t, null).body().show()).contains("out");
    }
    assertThat(DefaultSchedules.cpu(op).trace().toString())
        .contains("parallel")
        .contains("vectorize");
    Knobs k = Knobs.defaults();
    assertThat(DefaultSchedules.gpu(op, k).trace().toString())
        .contains("bind(")
        .contains("blockIdx.x")
        .contains("threadIdx.x");
    assertThat(k.chosen()).isEqualTo(Map.of("threads", 256));
  }
}
