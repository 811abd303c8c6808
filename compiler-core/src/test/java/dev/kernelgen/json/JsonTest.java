package dev.kernelgen.json;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class JsonTest {
  private static Map<String, Object> sample() {
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("z", 1);
    m.put("a", "x\"y\\\n");
    m.put("shape", List.of(1L, 256L, 2.5));
    m.put("empty", Map.of());
    m.put("none", List.of());
    m.put("names", List.of("b", Map.of("k", true)));
    m.put("null", null);
    return m;
  }

  @Test
  void prettyKeepsTheManifestLayout() {
    assertThat(Json.pretty(sample()))
        .isEqualTo(
            """
            {
              "z": 1,
              "a": "x\\"y\\\\\\n",
              "shape": [1, 256, 2.5],
              "empty": {},
              "none": [],
              "names": [
                "b",
                {
                  "k": true
                }
              ],
              "null": null
            }
            """);
  }

  @Test
  void lineIsOneCompactLine() {
    assertThat(Json.line(sample()))
        .isEqualTo(
            "{\"z\":1,\"a\":\"x\\\"y\\\\\\n\",\"shape\":[1,256,2.5],\"empty\":{},\"none\":[],"
                + "\"names\":[\"b\",{\"k\":true}],\"null\":null}");
  }

  @Test
  void nonFiniteNumbersAreWrittenAsNull() {
    List<Object> l = new java.util.ArrayList<>(List.of(Double.NaN, 1.5, Float.POSITIVE_INFINITY));
    l.add(2.5f);
    assertThat(Json.line(l)).isEqualTo("[null,1.5,null,2.5]");
  }

  @Test
  void parseKeepsMemberOrderAndNumberKinds() {
    Object v = Json.parse("{\"b\": [1, 5000000000, 0.5], \"a\": null}");
    assertThat(v).isInstanceOf(LinkedHashMap.class);
    @SuppressWarnings("unchecked")
    Map<String, Object> m = (Map<String, Object>) v;
    assertThat(List.copyOf(m.keySet())).isEqualTo(List.of("b", "a"));
    assertThat(m.get("b")).isEqualTo(List.of(1, 5000000000L, 0.5));
  }

  @Test
  void malformedInputIsAnIllegalArgument() {
    assertThatThrownBy(() -> Json.parse("{\"a\": 1} x"))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> Json.parse("{\"a\": 1")).isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> Json.parse("{\"a\": NaN}"))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> Json.parse("{\"a\": 1, \"a\": 2}"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("a");
    byte[] bad = "{\"a\": \"\u00e9\"}".getBytes(StandardCharsets.UTF_8);
    bad[7] = (byte) 0xff;
    assertThatThrownBy(() -> Json.parse(bad))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("UTF-8");
  }

  @Test
  void deepNestingIsRejectedWithoutRecursingDeep() {
    String deep = "[".repeat(100_000) + "]".repeat(100_000);
    assertThatThrownBy(() -> Json.parse(deep))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("nesting depth");
    String ok = "[".repeat(Json.MAX_DEPTH) + "]".repeat(Json.MAX_DEPTH);
    assertThat(Json.parse(ok)).isInstanceOf(List.class);
  }
}
