package dev.kernelgen.bench;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.kernelgen.json.Json;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class WorkloadTest {
  @Test
  void samePadsFollowTensorFlow() {
    Workload w = Workload.of(1, 256, 96, 96, 1, 3, 1, Padding.SAME);
    assertThat(w.name()).isEqualTo("1x256x96x96 k3 m1 s1 SAME");
    assertThat(List.of(w.outH(), w.outW(), w.padTop(), w.padLeft(), w.padBottom(), w.padRight()))
        .containsExactly(96, 96, 1, 1, 1, 1);

    // Stride 2 on an even size: out 48, pad_total = 47*2 + 3 - 96 = 1, all of it at the end.
    Workload s2 = Workload.of(1, 8, 96, 96, 1, 3, 2, Padding.SAME);
    assertThat(List.of(s2.outH(), s2.padTop(), s2.padBottom())).containsExactly(48, 0, 1);

    // K=5 on 23 x 17 with stride 2: out 12 x 9; pads 11*2+5-23 = 4 (2,2) and 8*2+5-17 = 4.
    Workload r = Workload.of(1, 4, 23, 17, 2, 5, 2, Padding.SAME);
    assertThat(List.of(r.outH(), r.outW(), r.padTop(), r.padBottom(), r.padLeft(), r.padRight()))
        .containsExactly(12, 9, 2, 2, 2, 2);
    assertThat(r.outChannels()).isEqualTo(8);
    assertThat(r.filterSize()).isEqualTo(8 * 25);
  }

  @Test
  void validHasNoPads() {
    Workload w = Workload.of(1, 2, 23, 17, 1, 3, 2, Padding.VALID);
    assertThat(List.of(w.outH(), w.outW(), w.padTop(), w.padRight())).containsExactly(11, 8, 0, 0);
    assertThatThrownBy(() -> Workload.of(1, 2, 2, 2, 1, 3, 1, Padding.VALID))
        .hasMessageContaining("does not fit");
  }

  @Test
  void seedHasTheArticlesNineWorkloadsAndExtrasMakeEleven() {
    List<Workload> seed = Workloads.seed();
    assertThat(seed).hasSize(9);
    assertThat(seed.get(0).name()).isEqualTo("1x256x21x21 k3 m1 s1 SAME");
    assertThat(seed)
        .extracting(Workload::name)
        .contains("1x256x96x96 k5 m2 s1 SAME", "1x256x96x96 k3 m1 s1 VALID");
    assertThat(Workloads.all()).hasSize(11);
    assertThat(Workloads.all())
        .extracting(Workload::name)
        .contains("1x256x96x96 k3 m1 s2 SAME", "1x256x23x17 k3 m1 s1 SAME");
  }

  @Test
  void seedParserNamesTheBadField() {
    assertThatThrownBy(
            () ->
                Workloads.parseSeed(
                    "{\"workloads\":[{\"input\":[1,2,3,4],\"multiplier\":1.5,"
                        + "\"kernel\":3,\"stride\":1,\"padding\":\"SAME\"}]}"))
        .hasMessageContaining("multiplier");
    assertThatThrownBy(() -> Workloads.parseSeed("{\"workloads\": [}"))
        .hasMessageContaining("seed file is not valid JSON")
        .hasMessageContaining("column");
  }

  @Test
  void gpuWorkloadListHasPads() {
    Object parsed = Json.parse(Workloads.toGpuJson(Workloads.extras()));
    assertThat(parsed).isInstanceOf(List.class);
    @SuppressWarnings("unchecked")
    Map<String, Object> s2 = (Map<String, Object>) ((List<?>) parsed).get(0);
    assertThat(s2.keySet())
        .containsExactly(
            "workload",
            "n",
            "c",
            "h",
            "w",
            "multiplier",
            "kernel",
            "stride",
            "pad_top",
            "pad_left",
            "pad_bottom",
            "pad_right");
    assertThat(s2).containsEntry("stride", 2).containsEntry("pad_top", 0);
    assertThat(s2).containsEntry("pad_bottom", 1);
  }
}
