package dev.kernelgen.runtime.launch;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.kernelgen.runtime.DeviceBuffer;
import dev.kernelgen.runtime.Devices;
import dev.kernelgen.runtime.HostTensor;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * After a sticky CUDA error every close fails too: {@link Launchers#closeAll} (what {@link
 * Launchers#onDevice} closes its copies with) still closes everything, and the launch's error stays
 * the one thrown.
 */
class CloseAllTest {
  record Res(String name, boolean fails, List<String> closed) implements AutoCloseable {
    @Override
    public void close() {
      closed.add(name);
      if (fails) {
        throw new IllegalStateException(name + ": cuMemFree failed: CUDA_ERROR_ILLEGAL_ADDRESS");
      }
    }
  }

  @Test
  void aFailingCloseDoesNotSkipTheOthersNorMaskTheLaunchsError() {
    List<String> closed = new ArrayList<>();
    RuntimeException launch = new RuntimeException("cuLaunchKernel failed");
    Launchers.closeAll(
        new AutoCloseable[] {
          new Res("a", true, closed), null, new Res("b", true, closed), new Res("c", false, closed)
        },
        launch);
    assertThat(closed).containsExactly("a", "b", "c");
    assertThat(launch.getSuppressed()).hasSize(2);
    assertThat(launch.getSuppressed()[0]).hasMessageStartingWith("a: cuMemFree");
  }

  @Test
  void withoutALaunchErrorTheFirstCloseFailureIsThrownWithTheLaterOnesSuppressed() {
    List<String> closed = new ArrayList<>();
    assertThatThrownBy(
            () ->
                Launchers.closeAll(
                    new AutoCloseable[] {
                      new Res("a", true, closed),
                      new Res("b", true, closed),
                      new Res("c", false, closed)
                    },
                    null))
        .hasMessageStartingWith("a: cuMemFree")
        .satisfies(e -> assertThat(e.getSuppressed()).hasSize(1));
    assertThat(closed).containsExactly("a", "b", "c");
  }

  @Test
  void onDeviceClosesItsCopiesAndRethrowsTheLaunchsError() {
    assumeTrue(Devices.openCl().isPresent(), "no OpenCL device: " + Devices.describe());
    List<DeviceBuffer> seen = new ArrayList<>();
    try (HostTensor in = HostTensor.of(new float[] {1, 2});
        HostTensor out = HostTensor.of(new float[] {0, 0})) {
      assertThatThrownBy(
              () ->
                  Launchers.onDevice(
                      Devices.openCl().get(),
                      new HostTensor[] {in},
                      new HostTensor[] {out},
                      args -> {
                        for (Object a : args) {
                          seen.add((DeviceBuffer) a);
                        }
                        throw new IllegalStateException("launch failed");
                      }))
          .hasMessage("launch failed");
    }
    assertThat(seen).hasSize(2);
    for (DeviceBuffer b : seen) {
      assertThatThrownBy(() -> b.copyFromHost(HostTensor.of(new float[] {1, 2})))
          .isInstanceOf(IllegalStateException.class)
          .hasMessageEndingWith("was closed");
    }
  }
}
