package dev.kernelgen.bench;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class JsonTest {
  @Test
  void roundTrips() {
    Map<String, Object> o = new LinkedHashMap<>();
    o.put("s", "a \"quoted\"\n\\ line");
    o.put("i", 3L);
    o.put("d", 2.5);
    o.put("b", true);
    o.put("n", null);
    o.put("l", Arrays.asList(1L, null, List.of()));
    assertThat(Json.parse(Json.write(o))).isEqualTo(o);
  }

  @Test
  void parsesNumbersEscapesAndNesting() {
    Object v = Json.parse(" {\"a\": [1, -2.5e1, \"\\u0041\"], \"b\": {}} ");
    assertThat(v).isEqualTo(Map.of("a", List.of(1L, -25.0, "A"), "b", Map.of()));
  }

  @Test
  void nonFiniteNumbersAreWrittenAsNull() {
    assertThat(Json.write(Arrays.asList(Double.NaN, 1.0))).isEqualTo("[\n  null,\n  1\n]\n");
  }

  @Test
  void errorsSayWhere() {
    assertThatThrownBy(() -> Json.parse("[1,\n 2 x]")).hasMessageContaining("line 2, column 4");
    assertThatThrownBy(() -> Json.parse("[1] 2")).hasMessageContaining("trailing");
  }
}
