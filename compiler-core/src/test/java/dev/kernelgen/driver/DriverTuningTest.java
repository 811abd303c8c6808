package dev.kernelgen.driver;

import static org.assertj.core.api.Assertions.assertThat;

import dev.kernelgen.annotations.Target;
import dev.kernelgen.tune.Configuration;
import dev.kernelgen.tune.TuningRecord;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class DriverTuningTest {
  @TempDir Path tmp;

  private static final List<List<Long>> SHAPE =
      List.of(List.of(1024L), List.of(1024L), List.of(1024L));

  private static TuningRecord rec(String device, int vector, double us) {
    return new TuningRecord(
        "SmallKernels/add",
        "C",
        device,
        Map.of(),
        SHAPE,
        Configuration.of(Map.of("vector", vector)),
        List.of(),
        "OK",
        us,
        us,
        "",
        "");
  }

  private LibraryModel generate(
      List<TuningRecord> records, Map<Target, String> devices, List<String> log) {
    return KernelDriver.generate(
            GenerateRequest.builder()
                .spec(Specs.Small.class)
                .targets(EnumSet.of(Target.C))
                .resourcesDir(tmp.resolve("resources"))
                .tuning(records)
                .tuningDevices(devices)
                .log(log::add)
                .build())
        .get(0);
  }

  private static LibraryModel.Build specialized(LibraryModel m) {
    return m.operators().get(0).variants().get(1).builds().get(Target.C);
  }

  @Test
  void theBestRecordOfTheOnlyDeviceIsUsedAndFallbacksAreListed() {
    List<String> log = new ArrayList<>();
    LibraryModel m = generate(List.of(rec("cpu A", 16, 2.0), rec("cpu A", 4, 1.0)), Map.of(), log);
    LibraryModel.Build b = specialized(m);
    assertThat(b.knobs()).isEqualTo(Map.of("vector", 4));
    assertThat(b.configurationSource()).isEqualTo("tuned");
    String text = String.join("\n", log);
    assertThat(text)
        .contains("operator 'add' for C specialized to n=1024: tuned configuration {vector=4}")
        .contains("1.00 us median on cpu A")
        .contains("fell back to default schedules")
        .contains("operator 'add' for C: its shape has symbolic dims");
    // The generic variant keeps the defaults.
    assertThat(m.operators().get(0).variants().get(0).builds().get(Target.C).knobs())
        .isEqualTo(Map.of("vector", 8));
  }

  private static TuningRecord rec(String isa, String device, int vector, double us) {
    return new TuningRecord(
        "SmallKernels/add",
        "C",
        device,
        Map.of("isa", isa),
        SHAPE,
        Configuration.of(Map.of("vector", vector)),
        List.of(),
        "OK",
        us,
        us,
        "",
        "");
  }

  @Test
  void eachIsaLevelsLibraryIsBuiltFromThatLevelsRecordsAndTheOthersFromTheDefault()
      throws Exception {
    List<String> log = new ArrayList<>();
    List<TuningRecord> rs =
        List.of(
            rec("x86-64-v4", "cpu A", 16, 1.0),
            rec("x86-64-v4", "cpu A", 4, 3.0),
            rec("x86-64-v3", "cpu A", 4, 2.0));
    LibraryModel m = generate(rs, Map.of(), log);
    // The model's own configuration stays the default: no record without a level; each tuned
    // level's configuration is recorded beside it (and in the manifest).
    assertThat(specialized(m).knobs()).isEqualTo(Map.of("vector", 8));
    assertThat(specialized(m).tunedByIsaLevel())
        .isEqualTo(Map.of("x86-64-v3", Map.of("vector", 4), "x86-64-v4", Map.of("vector", 16)));
    Path dir = tmp.resolve("resources").resolve(m.resourceDir());
    String plain = java.nio.file.Files.readString(dir.resolve("c/SmallKernels.c"));
    String v3 = java.nio.file.Files.readString(dir.resolve("c/SmallKernels.x86-64-v3.c"));
    String v4 = java.nio.file.Files.readString(dir.resolve("c/SmallKernels.x86-64-v4.c"));
    assertThat(v3).isNotEqualTo(plain).isNotEqualTo(v4);
    assertThat(v4).isNotEqualTo(plain);
    assertThat(dir.resolve("c/SmallKernels.x86-64-v2.c")).doesNotExist();
    String manifest = java.nio.file.Files.readString(dir.resolve("manifest.json"));
    assertThat(manifest)
        .contains("\"source\": \"c/SmallKernels.x86-64-v3.c\"")
        .contains("\"source\": \"c/SmallKernels.x86-64-v4.c\"")
        .contains("\"tunedByIsaLevel\"");
    assertThat(String.join("\n", log))
        .contains("specialized to n=1024 at x86-64-v4: tuned configuration {vector=16}")
        .contains("specialized to n=1024 at x86-64-v3: tuned configuration {vector=4}")
        .doesNotContain("at x86-64-v2: tuned")
        .contains(
            "operator 'add' for C specialized to n=1024 at x86-64-v2: no record at this level")
        .doesNotContain("for C specialized to n=1024: no successful record");
    // Each level's function: the default splits by 8, v3 by 4, v4 by 16.
    assertThat(section(plain, "add_n1024")).contains("8");
    assertThat(section(v3, "add_n1024")).doesNotContain("16");
    assertThat(section(v4, "add_n1024")).contains("16");
  }

  /** The text of a C function, from its signature to the next function. */
  private static String section(String c, String fn) {
    int from = c.indexOf("int64_t " + fn + "(");
    int to = c.indexOf("\n}\n", from + 1);
    return c.substring(from, to < 0 ? c.length() : to);
  }

  @Test
  void severalDevicesNeedAConfiguredOne() {
    List<TuningRecord> rs = List.of(rec("cpu A", 4, 1.0), rec("cpu B", 16, 0.5));
    List<String> log = new ArrayList<>();
    assertThat(specialized(generate(rs, Map.of(), log)).knobs()).isEqualTo(Map.of("vector", 8));
    assertThat(String.join("\n", log)).contains("several devices [cpu A, cpu B]");
    assertThat(specialized(generate(rs, Map.of(Target.C, "cpu A"), new ArrayList<>())).knobs())
        .isEqualTo(Map.of("vector", 4));
  }

  @Test
  void anIsaLevelsRecordsOfSeveralDevicesAreReportedNotSilentlyUntuned() {
    // One level's records from two machines (a log tuned on an AMD EPYC, then on a Xeon): the
    // level is built untuned, and the build says why, naming the devices.
    List<TuningRecord> rs =
        List.of(rec("x86-64-v4", "cpu A", 16, 1.0), rec("x86-64-v4", "cpu B", 4, 0.5));
    List<String> log = new ArrayList<>();
    generate(rs, Map.of(), log);
    assertThat(String.join("\n", log))
        .contains("at x86-64-v4: the tuning log has records of several devices [cpu A, cpu B]")
        .doesNotContain("x86-64-v4: tuned configuration");
    List<String> chosen = new ArrayList<>();
    generate(rs, Map.of(Target.C, "cpu B"), chosen);
    assertThat(String.join("\n", chosen)).contains("at x86-64-v4: tuned configuration {vector=4}");
  }

  @Test
  void aStaleRecordFallsBackInsteadOfFailing() {
    List<String> log = new ArrayList<>();
    LibraryModel m = generate(List.of(rec("cpu A", 5, 1.0)), Map.of(), log);
    assertThat(specialized(m).knobs()).isEqualTo(Map.of("vector", 8));
    assertThat(String.join("\n", log))
        .contains("its record is stale")
        .contains("not among its choices");
  }

  @Test
  void withoutRecordsOneLineSaysSo() {
    List<String> log = new ArrayList<>();
    generate(List.of(), Map.of(), log);
    assertThat(log).anyMatch(l -> l.contains("no tuning records, default configurations"));
  }
}
