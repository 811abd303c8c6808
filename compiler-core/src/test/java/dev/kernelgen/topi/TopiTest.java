package dev.kernelgen.topi;

import static dev.kernelgen.te.TE.FLOAT32;
import static dev.kernelgen.te.TE.placeholder;
import static org.assertj.core.api.Assertions.assertThat;

import dev.kernelgen.te.Tensor;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;

/** {@link Topi} is the one place that lists the library: every public operator is there. */
class TopiTest {
  private static final List<Class<?>> LIBRARY =
      List.of(
          Elementwise.class,
          Nn.class,
          Conv.class,
          Linalg.class,
          Pooling.class,
          Reduction.class,
          Transform.class);

  @Test
  void everyPublicOperatorOfTheLibraryIsInTopi() {
    List<String> missing = new ArrayList<>();
    for (Class<?> c : LIBRARY) {
      for (Method m : c.getDeclaredMethods()) {
        if (Modifier.isPublic(m.getModifiers())
            && Modifier.isStatic(m.getModifiers())
            && m.getReturnType() == Tensor.class) {
          try {
            Topi.class.getMethod(m.getName(), m.getParameterTypes());
          } catch (NoSuchMethodException e) {
            missing.add(
                c.getSimpleName() + "." + m.getName() + Arrays.toString(m.getParameterTypes()));
          }
        }
      }
    }
    assertThat(missing).isEmpty();
  }

  @Test
  void topiDelegatesToTheDefiningClass() {
    Tensor x = placeholder("x", FLOAT32, 2, 3);
    Tensor r = Topi.relu6(x);
    assertThat(r.name()).isEqualTo(Elementwise.relu6(x).name());
    assertThat(Topi.softmax(x, 1).shape()).isEqualTo(x.shape());
  }
}
