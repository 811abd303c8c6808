package dev.kernelgen.driver;

import static org.assertj.core.api.Assertions.assertThat;

import dev.kernelgen.annotations.Target;
import dev.kernelgen.autosched.AutoScheduler;
import dev.kernelgen.tune.Configuration;
import dev.kernelgen.tune.TuningRecord;
import dev.kernelgen.tune.TuningTask;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue 13: kernels:tune races the generated schedules against a spec's schedule method (or a
 * library template), and generate embeds whichever record is faster.
 */
class GeneratedRaceTest {
  @TempDir Path tmp;

  private GenerateRequest request(List<TuningRecord> records, List<String> log) {
    return GenerateRequest.builder()
        .spec(Specs.Small.class)
        .targets(EnumSet.of(Target.C))
        .resourcesDir(tmp.resolve("resources"))
        .tuning(records)
        .log(log::add)
        .build();
  }

  private static List<TuningTask> addTasks(List<TuningTask> tasks) {
    return tasks.stream().filter(t -> t.operator().equals("SmallKernels/add")).toList();
  }

  @Test
  void anOperatorWithAScheduleMethodGetsASecondTaskOverTheGeneratedSpace() {
    List<TuningTask> plain =
        addTasks(KernelDriver.tuningTasks(request(List.of(), new ArrayList<>())));
    List<TuningTask> raced =
        addTasks(KernelDriver.tuningTasks(request(List.of(), new ArrayList<>()), true));
    assertThat(plain).hasSize(1);
    assertThat(KernelDriver.generatedSchedules(plain.get(0))).isFalse();
    assertThat(raced).hasSize(2);
    assertThat(raced.get(0).space().knobs()).containsOnlyKeys("vector");
    assertThat(KernelDriver.generatedSchedules(raced.get(1))).isTrue();
    assertThat(raced.get(1).kernelName()).isEqualTo(raced.get(0).kernelName());
  }

  @Test
  void aSearchOfTheGeneratedSpaceMeasuresTheUntunedPickFirst() {
    List<TuningTask> raced =
        addTasks(KernelDriver.tuningTasks(request(List.of(), new ArrayList<>()), true));
    assertThat(KernelDriver.firstCandidates(raced.get(0))).isEmpty();
    TuningTask generated = raced.get(1);
    List<Configuration> first = KernelDriver.firstCandidates(generated);
    assertThat(first).hasSize(1);
    assertThat(generated.space().contains(first.get(0))).isTrue();
    // The pick is what generate embeds without a record: the same schedule, primitive by primitive.
    assertThat(TuningTask.trace(generated.schedule(first.get(0))))
        .isEqualTo(
            TuningTask.trace(
                dev.kernelgen.autosched.AutoScheduler.untuned(
                    Target.C, generated.def().outputs())));
  }

  @Test
  void onGpusASearchOfTheGeneratedSpaceAlsoMeasuresTheNaiveFloorFirst() {
    GenerateRequest gpu =
        GenerateRequest.builder()
            .spec(Specs.Small.class)
            .targets(EnumSet.of(Target.OPENCL))
            .resourcesDir(tmp.resolve("resources"))
            .log(s -> {})
            .build();
    TuningTask generated =
        KernelDriver.tuningTasks(gpu, true).stream()
            .filter(t -> t.operator().equals("SmallKernels/add"))
            .filter(KernelDriver::generatedSchedules)
            .findFirst()
            .orElseThrow();
    List<Configuration> first = KernelDriver.firstCandidates(generated);
    assertThat(first).hasSize(2);
    assertThat(first.get(0).values()).containsEntry(AutoScheduler.SKETCH, AutoScheduler.RULES);
    assertThat(first.get(1).values()).containsEntry(AutoScheduler.SKETCH, AutoScheduler.NAIVE);
    assertThat(generated.space().contains(first.get(1))).isTrue();
    assertThat(TuningTask.trace(generated.schedule(first.get(1))))
        .isEqualTo(
            TuningTask.trace(
                AutoScheduler.generate(
                    Target.OPENCL,
                    generated.def().outputs(),
                    dev.kernelgen.spec.Knobs.configured(
                        Map.of(AutoScheduler.SKETCH, AutoScheduler.NAIVE)))));
  }

  @Test
  void aConvolutionsSearchMeasuresBothAlgorithmsPicksFirst() {
    // The library conv2d on C where the untuned pick is Winograd's: its default schedule is the
    // generated one, whose search starts from that pick and from the direct convolution's.
    GenerateRequest conv =
        GenerateRequest.builder()
            .spec(Specs.ConvLayer.class)
            .targets(EnumSet.of(Target.C))
            .resourcesDir(tmp.resolve("resources"))
            .log(s -> {})
            .build();
    TuningTask task = KernelDriver.tuningTasks(conv, true).get(0);
    assertThat(KernelDriver.generatedSchedules(task)).isTrue();
    List<Configuration> first = KernelDriver.firstCandidates(task);
    assertThat(first).hasSize(2);
    assertThat(first.get(0).values()).containsEntry(AutoScheduler.SKETCH, AutoScheduler.WINOGRAD);
    assertThat(first.get(1).values()).containsEntry(AutoScheduler.SKETCH, AutoScheduler.RULES);
    for (Configuration c : first) {
      assertThat(task.space().contains(c)).isTrue();
    }
    // The direct candidate is the direct sketch's own pick, not its defaults.
    assertThat(TuningTask.trace(task.schedule(first.get(1))))
        .isEqualTo(
            TuningTask.trace(
                AutoScheduler.schedule(
                    Target.C,
                    task.def().outputs(),
                    dev.kernelgen.spec.Knobs.configured(
                        Map.of(AutoScheduler.SKETCH, AutoScheduler.RULES)))));
  }

  private static TuningRecord rec(Configuration c, double us) {
    return new TuningRecord(
        "SmallKernels/add",
        "C",
        "cpu A",
        Map.of(),
        List.of(List.of(1024L), List.of(1024L), List.of(1024L)),
        c,
        List.of(),
        "OK",
        us,
        us,
        "",
        "");
  }

  private LibraryModel.Build specialized(List<TuningRecord> records, List<String> log) {
    LibraryModel m = KernelDriver.generate(request(records, log)).get(0);
    return m.operators().get(0).variants().get(1).builds().get(Target.C);
  }

  @Test
  void theFasterOfTheTwoSpacesRecordsIsEmbedded() {
    TuningTask generated =
        addTasks(KernelDriver.tuningTasks(request(List.of(), new ArrayList<>()), true)).get(1);
    Configuration g = generated.space().defaults();
    Configuration v = Configuration.of(Map.of("vector", 4));

    List<String> log = new ArrayList<>();
    LibraryModel.Build b = specialized(List.of(rec(v, 2.0), rec(g, 1.0)), log);
    assertThat(b.configurationSource()).isEqualTo("tuned");
    assertThat(b.knobs()).isEqualTo(g.values());
    assertThat(String.join("\n", log)).contains("tuned configuration " + g);

    log.clear();
    b = specialized(List.of(rec(v, 1.0), rec(g, 2.0)), log);
    assertThat(b.knobs()).isEqualTo(Map.of("vector", 4));
    assertThat(String.join("\n", log)).contains("tuned configuration {vector=4}");
  }
}
