package dev.kernelgen.tune.search;

import static org.assertj.core.api.Assertions.assertThat;

import dev.kernelgen.tune.Configuration;
import dev.kernelgen.tune.Measurement;
import dev.kernelgen.tune.TuningRecord;
import dev.kernelgen.tune.features.LoopFeatures;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class RecordFeaturesTest {

  private static TuningRecord record() {
    return new TuningRecord(
        "Lib/op",
        "C",
        "cpu",
        Map.of(),
        List.of(List.of(4L)),
        Configuration.of(Map.of("t", 1)),
        List.of(),
        "OK",
        2.5,
        2.0,
        "",
        "2026-12-01T00:00:00Z");
  }

  @Test
  void recordsKeepTheFeaturesOfTheirMeasurement() {
    double[] x = new double[LoopFeatures.SIZE];
    for (int i = 0; i < x.length; i++) {
      x[i] = i / 3.0;
    }
    Measurement m = Measurement.ok(Configuration.of(Map.of("t", 1)), 2.5, 2.0, List.of());
    TuningRecord r = record().withFeatures(m.withFeatures(x));
    assertThat(r.featureSet()).isEqualTo(LoopFeatures.VERSION);
    String line = r.toJson();
    assertThat(line).contains("\"feature_set\":\"" + LoopFeatures.VERSION + "\"");
    TuningRecord back = TuningRecord.parse(line);
    assertThat(back.features()).hasSize(LoopFeatures.SIZE);
    assertThat(back.features().get(4))
        .isCloseTo(4 / 3.0, org.assertj.core.data.Offset.offset(1e-4));
    // A record without features writes none and reads back without.
    assertThat(record().withFeatures(m).toJson()).doesNotContain("features");
    assertThat(TuningRecord.parse(record().toJson()).features()).isEmpty();
  }

  @Test
  void onlyRecordsOfTheCurrentFeatureSetWarmTheModel() {
    LearnedCostModel model =
        new LearnedCostModel(dev.kernelgen.tune.model.GradientBoostedTrees.Params.defaults(), 2);
    double[] x = new double[LoopFeatures.SIZE];
    Measurement m = Measurement.ok(Configuration.of(Map.of("t", 1)), 2.5, 2.0, List.of());
    assertThat(model.addTransfer(record().withFeatures(m.withFeatures(x)), 1)).isTrue();
    assertThat(model.addTransfer(record(), 1)).isFalse();
    TuningRecord old =
        new TuningRecord(
            "Lib/op",
            "C",
            "cpu",
            Map.of(),
            List.of(List.of(4L)),
            Configuration.of(Map.of("t", 1)),
            List.of(),
            "OK",
            2.5,
            2.0,
            "",
            "",
            "loop-v0",
            List.of(1.0, 2.0));
    assertThat(model.addTransfer(old, 1)).isFalse();
    assertThat(model.transferred()).isEqualTo(1);
  }
}
