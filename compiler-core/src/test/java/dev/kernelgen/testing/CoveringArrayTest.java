package dev.kernelgen.testing;

import static org.assertj.core.api.Assertions.assertThat;

import dev.kernelgen.tune.ConfigSpace;
import dev.kernelgen.tune.Configuration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

class CoveringArrayTest {
  private static ConfigSpace space() {
    Map<String, List<Integer>> knobs = new LinkedHashMap<>();
    knobs.put("a", List.of(0, 8, 16));
    knobs.put("b", List.of(0, 4, 16));
    knobs.put("c", List.of(1, 0));
    knobs.put("d", List.of(1, 0));
    knobs.put("e", List.of(1, 2, 4));
    knobs.put("f", List.of(1, 0));
    knobs.put("g", List.of(1, 0));
    return new ConfigSpace(knobs);
  }

  @Test
  void everyTripleOfKnobValuesAppearsInSomeConfiguration() {
    ConfigSpace s = space();
    List<Configuration> array = CoveringArray.of(s, 3);
    List<String> knobs = new ArrayList<>(s.knobs().keySet());
    // Checked independently of the construction: every value triple of every knob triple.
    for (int i = 0; i < knobs.size(); i++) {
      for (int j = i + 1; j < knobs.size(); j++) {
        for (int k = j + 1; k < knobs.size(); k++) {
          Set<List<Integer>> seen = new HashSet<>();
          for (Configuration c : array) {
            seen.add(
                List.of(
                    c.values().get(knobs.get(i)),
                    c.values().get(knobs.get(j)),
                    c.values().get(knobs.get(k))));
          }
          int want =
              s.knobs().get(knobs.get(i)).size()
                  * s.knobs().get(knobs.get(j)).size()
                  * s.knobs().get(knobs.get(k)).size();
          assertThat(seen).as("%s %s %s", knobs.get(i), knobs.get(j), knobs.get(k)).hasSize(want);
        }
      }
    }
    assertThat(array).allMatch(s::contains).doesNotHaveDuplicates();
    // Far fewer than the 432 points, at least the 27 of the largest triple.
    assertThat(array.size()).isBetween(27, 60);
    assertThat(CoveringArray.of(s, 3)).isEqualTo(array);
  }

  @Test
  void aSpaceWithFewerKnobsThanTheStrengthIsTakenWhole() {
    ConfigSpace s = new ConfigSpace(Map.of("a", List.of(1, 2, 3), "b", List.of(0, 1)));
    assertThat(CoveringArray.of(s, 3)).hasSize(6);
  }
}
