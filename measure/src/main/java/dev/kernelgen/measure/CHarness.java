package dev.kernelgen.measure;

import dev.kernelgen.te.Buffer;
import dev.kernelgen.tir.PrimFunc;
import java.util.List;
import java.util.Locale;

/**
 * The C harness: a {@code main} printed after a candidate's C kernel that reads the inputs from
 * files, runs the kernel once and writes its outputs (which the runner checks against the oracle),
 * then times warm-up and repeated calls with {@code clock_gettime(CLOCK_MONOTONIC)}, several calls
 * per sample for short kernels, and prints {@code KG_TIMES median min} in microseconds.
 *
 * <p>A slow candidate is timed within a budget: warm-up stops after {@value #WARMUP_BUDGET_US} us
 * and the samples are cut to what fits in {@value #SAMPLE_BUDGET_US} us (never under three), so a
 * search over a large operator does not spend most of its time on candidates that lose anyway (a
 * serial loop nest of a 1024-cubed matmul takes a second a call).
 */
final class CHarness {
  private CHarness() {}

  /** The timing protocol's clock. */
  static final String CLOCK =
      "clock_gettime(CLOCK_MONOTONIC), calls batched to 500 us, slow candidates"
          + " sampled within 2 s (at least 3 samples)";

  static final long WARMUP_BUDGET_US = 1_000_000;
  static final long SAMPLE_BUDGET_US = 2_000_000;

  /** The {@code main} that loads, checks and times {@code f}. */
  static String harness(PrimFunc f, int inputs) {
    StringBuilder sb = new StringBuilder();
    sb.append(
        """

        /* Tuning harness: argv = data dir, output dir, warm-up calls, timed samples. */
        #include <stdio.h>
        #include <string.h>
        #include <time.h>
        static double kg_now_us(void) {
          struct timespec t;
          clock_gettime(CLOCK_MONOTONIC, &t);
          return t.tv_sec * 1e6 + t.tv_nsec * 1e-3;
        }
        static void* kg_load(const char* dir, const char* name, size_t bytes, int read) {
          void* p = aligned_alloc(64, (bytes + 63) / 64 * 64);
          if (!p) { fprintf(stderr, "out of memory\\n"); exit(3); }
          memset(p, 0, bytes);
          if (!read) return p;
          char path[4096];
          snprintf(path, sizeof path, "%s/%s", dir, name);
          FILE* f = fopen(path, "rb");
          if (!f || fread(p, 1, bytes, f) != bytes) { fprintf(stderr, "cannot read %s\\n", path); exit(4); }
          fclose(f);
          return p;
        }
        static void kg_save(const char* dir, const char* name, const void* p, size_t bytes) {
          char path[4096];
          snprintf(path, sizeof path, "%s/%s", dir, name);
          FILE* f = fopen(path, "wb");
          if (!f || fwrite(p, 1, bytes, f) != bytes) { fprintf(stderr, "cannot write %s\\n", path); exit(5); }
          fclose(f);
        }
        static int kg_cmp(const void* a, const void* b) {
          double x = *(const double*) a, y = *(const double*) b;
          return x < y ? -1 : x > y;
        }
        int main(int argc, char** argv) {
          if (argc < 5) { fprintf(stderr, "usage: data out warmup repeats\\n"); return 2; }
          int warmup = atoi(argv[3]), repeats = atoi(argv[4]);
        """);
    sb.append(
        String.format(
            Locale.ROOT,
            "  const double KG_WARMUP_BUDGET_US = %d.0, KG_SAMPLE_BUDGET_US = %d.0;%n",
            WARMUP_BUDGET_US,
            SAMPLE_BUDGET_US));
    List<Buffer> ps = f.params();
    int stored = inputs;
    for (int i = 0; i < ps.size(); i++) {
      Buffer b = ps.get(i);
      long n = 1;
      for (var d : b.shape()) {
        n *= ((dev.kernelgen.te.IntImm) d).value();
      }
      boolean input = i < stored;
      sb.append(
          String.format(
              Locale.ROOT,
              "  void* a%d = kg_load(argv[1], \"%s\", (size_t) %dL * %d, %d);%n",
              i,
              input ? i + ".bin" : "",
              n,
              b.dtype().bytes(),
              input ? 1 : 0));
      sb.append(
          String.format(
              Locale.ROOT, "  size_t n%d = (size_t) %dL * %d;%n", i, n, b.dtype().bytes()));
    }
    String call =
        f.name()
            + "("
            + String.join(
                ", ",
                java.util.stream.IntStream.range(0, ps.size()).mapToObj(i -> "a" + i).toList())
            + ");";
    // The checked call: a kernel returns the bytes of a temporary it could not allocate.
    sb.append("  { long long st = ")
        .append(call, 0, call.length() - 1)
        .append(
            "; if (st != 0) { fprintf(stderr, \"out of memory: the kernel could not allocate %lld"
                + " bytes\\n\", st); return 6; } }\n");
    for (int i = stored; i < ps.size(); i++) {
      sb.append(
          String.format(
              Locale.ROOT, "  kg_save(argv[2], \"out%d.bin\", a%d, n%d);%n", i - stored, i, i));
    }
    sb.append("  double w0 = kg_now_us();\n");
    sb.append("  for (int i = 0; i < warmup; i++) { ")
        .append(call)
        .append(" if (kg_now_us() - w0 > KG_WARMUP_BUDGET_US) break; }\n");
    sb.append(
        """
          double t0 = kg_now_us();
        """);
    sb.append("  ").append(call).append('\n');
    sb.append(
        """
          double one = kg_now_us() - t0;
          /* Several calls per sample when one is short, so the clock's resolution does not count. */
          int inner = one >= 500 ? 1 : (int) (500 / (one + 0.01)) + 1;
          if (inner > 10000) inner = 10000;
          /* A slow candidate: as many samples as fit in the budget, at least 3. */
          if (one * repeats > KG_SAMPLE_BUDGET_US) {
            int fit = (int) (KG_SAMPLE_BUDGET_US / one);
            int cut = fit < 3 ? 3 : fit;
            if (cut < repeats) repeats = cut;
          }
          double* s = malloc(sizeof(double) * repeats);
          for (int r = 0; r < repeats; r++) {
            double t = kg_now_us();
            for (int i = 0; i < inner; i++) """);
    sb.append(call).append('\n');
    sb.append(
        """
            s[r] = (kg_now_us() - t) / inner;
          }
          qsort(s, repeats, sizeof(double), kg_cmp);
          printf("KG_TIMES %.6f %.6f\\n", s[repeats / 2], s[0]);
          return 0;
        }
        """);
    return sb.toString();
  }
}
