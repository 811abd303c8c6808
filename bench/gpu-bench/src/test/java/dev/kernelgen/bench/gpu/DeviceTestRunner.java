package dev.kernelgen.bench.gpu;

import static org.junit.platform.engine.discovery.DiscoverySelectors.selectClass;

import java.io.PrintWriter;
import java.util.stream.Stream;
import org.junit.platform.engine.TestExecutionResult;
import org.junit.platform.launcher.Launcher;
import org.junit.platform.launcher.LauncherDiscoveryRequest;
import org.junit.platform.launcher.TestExecutionListener;
import org.junit.platform.launcher.TestIdentifier;
import org.junit.platform.launcher.core.LauncherDiscoveryRequestBuilder;
import org.junit.platform.launcher.core.LauncherFactory;
import org.junit.platform.launcher.listeners.SummaryGeneratingListener;
import org.junit.platform.launcher.listeners.TestExecutionSummary;

/**
 * Runs test classes by name with the JUnit Platform, without Maven: for the GPU machine, which has
 * a CUDA device but no Maven ({@code bench/gpu.sh tests OUT}). Prints one line per test and
 * container (successful, skipped with its reason, failed with its exception) and the summary; exits
 * with 1 when a test failed.
 *
 * <p>Usage: {@code DeviceTestRunner CLASS...}.
 */
public final class DeviceTestRunner {
  private DeviceTestRunner() {}

  public static void main(String[] args) {
    LauncherDiscoveryRequest request =
        LauncherDiscoveryRequestBuilder.request()
            .selectors(Stream.of(args).map(c -> selectClass(c)).toList())
            .build();
    Launcher launcher = LauncherFactory.create();
    SummaryGeneratingListener summary = new SummaryGeneratingListener();
    TestExecutionListener lines =
        new TestExecutionListener() {
          @Override
          public void executionSkipped(TestIdentifier id, String reason) {
            System.out.println("SKIPPED " + id.getDisplayName() + ": " + reason);
          }

          @Override
          public void executionFinished(TestIdentifier id, TestExecutionResult result) {
            String where = id.getLegacyReportingName();
            switch (result.getStatus()) {
              case SUCCESSFUL -> System.out.println("OK      " + where);
              case ABORTED ->
                  System.out.println(
                      "ABORTED "
                          + where
                          + ": "
                          + result.getThrowable().map(Throwable::getMessage).orElse(""));
              case FAILED -> {
                System.out.println("FAILED  " + where);
                result.getThrowable().ifPresent(t -> t.printStackTrace(System.out));
              }
            }
          }
        };
    launcher.execute(request, summary, lines);
    TestExecutionSummary s = summary.getSummary();
    s.printTo(new PrintWriter(System.out, true));
    System.exit(s.getTotalFailureCount() == 0 && s.getTestsFoundCount() > 0 ? 0 : 1);
  }
}
