package dev.kernelgen.samples.convbnswish;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * The OpenCL C the sample embeds (generic, 64-bit-index and the two tuned specialized kernels) is
 * free of the barrier patterns that are undefined behaviour in OpenCL C or that PoCL's work-group
 * loops mishandle: every barrier is reached by all work-items of a group (never under an {@code
 * if}, only inside loops whose bounds name no work-item id), and every private accumulator is
 * zeroed unconditionally before the first barrier (the pattern PoCL 5.0 lost, see {@code
 * codegen.UnguardedPrivateInit}). The structure the PoCL 5.0 failure of the [8,32,28,28] kernel
 * cannot be blamed on; {@link TunedOpenClKernelVariantsTest} probes what it can.
 */
class EmbeddedOpenClBarriersTest {
  private static final Pattern LOCAL_ID =
      Pattern.compile("const (?:int|long) (\\w+) = \\((?:int|long)\\)get_local_id\\(");
  private static final Pattern PRIVATE_ARRAY = Pattern.compile("^\\s*float (\\w+)\\[(\\d+)\\];$");

  @Test
  void everyBarrierIsReachedByTheWholeGroupAndAccumulatorsAreZeroedBeforeIt() throws IOException {
    String source = resource("/META-INF/kernels/ConvBnSwishKernels/opencl/ConvBnSwishKernels.cl");
    List<String> kernels = new ArrayList<>();
    for (String part : source.split("(?=__kernel void )")) {
      if (part.startsWith("__kernel void ")) {
        kernels.add(part);
      }
    }
    assertThat(kernels).hasSize(4);
    int barriers = 0;
    for (String k : kernels) {
      String name = k.substring("__kernel void ".length(), k.indexOf('('));
      Set<String> ids = new HashSet<>();
      Matcher m = LOCAL_ID.matcher(k);
      while (m.find()) {
        ids.add(m.group(1));
      }
      Deque<String> open = new ArrayDeque<>();
      Set<String> zeroed = new HashSet<>();
      List<String> accumulators = new ArrayList<>();
      boolean beforeFirstBarrier = true;
      for (String line : k.split("\n")) {
        String s = line.strip();
        Matcher a = PRIVATE_ARRAY.matcher(line);
        if (a.matches()) {
          accumulators.add(a.group(1));
        }
        if (beforeFirstBarrier && open.size() == 1 && s.matches("\\w+\\[\\d+L?\\] = 0\\.0f;")) {
          zeroed.add(s.substring(0, s.indexOf('[')));
        }
        if (s.startsWith("barrier(")) {
          barriers++;
          beforeFirstBarrier = false;
          for (String header : open) {
            assertThat(header)
                .as(name + ": a barrier under " + header)
                .satisfiesAnyOf(
                    h -> assertThat(h).startsWith("__kernel void "),
                    h -> assertThat(h).startsWith("for (").satisfies(f -> noneOf(f, ids)));
          }
        }
        if (s.startsWith("}")) {
          open.pop();
        }
        if (s.endsWith("{")) {
          open.push(s);
        }
      }
      if (!beforeFirstBarrier) {
        assertThat(zeroed)
            .as(name + ": accumulators zeroed before its barriers")
            .containsAll(accumulators);
      }
    }
    assertThat(barriers).as("barriers in the embedded kernels").isEqualTo(8);
  }

  private static void noneOf(String header, Set<String> ids) {
    for (String id : ids) {
      assertThat(header).as("loop bound naming work-item id " + id).doesNotContain(id);
    }
  }

  private static String resource(String path) throws IOException {
    try (InputStream s = EmbeddedOpenClBarriersTest.class.getResourceAsStream(path)) {
      assertThat(s).as(path).isNotNull();
      return new String(s.readAllBytes(), StandardCharsets.UTF_8);
    }
  }
}
