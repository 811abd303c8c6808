package dev.kernelgen.driver;

import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.kernelgen.diag.UserError;
import org.junit.jupiter.api.Test;

/** Collected errors name their place once. */
class UserErrorsTest {
  @Test
  void anErrorThatNamesAPlaceInTheSameSpecIsNotPrefixedAgain() {
    UserErrors errors = new UserErrors();
    errors.collect(
        "Spec.java: it.Spec.total()",
        () -> {
          throw new UserError("Spec.java: it.Spec.cpu(): parallel of reduce axis 'k'");
        });
    errors.collect(
        "Spec.java: it.Spec.other()",
        () -> {
          throw new UserError("tensor 'x' is read outside its shape");
        });
    assertThatThrownBy(errors::throwIfAny)
        .hasMessageContaining("1. Spec.java: it.Spec.cpu(): parallel of reduce axis 'k'")
        .hasMessageContaining("2. Spec.java: it.Spec.other(): tensor 'x' is read outside its shape")
        .hasMessageNotContaining("it.Spec.total(): Spec.java");
  }
}
