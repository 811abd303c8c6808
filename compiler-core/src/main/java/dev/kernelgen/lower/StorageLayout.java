package dev.kernelgen.lower;

import dev.kernelgen.schedule.Stage;
import java.util.List;
import java.util.Map;

/**
 * How a stage's buffer is laid out when it is not dense and row-major: the order of its dimensions
 * ({@code reorder_storage}, outermost first, as axis indices; empty for row-major) and the stride
 * constraints of some of them ({@code storage_align}, by axis index), and the dimensions stored as
 * phases ({@code storage_deinterleave}: axis index to factor).
 */
public record StorageLayout(
    List<Integer> order, Map<Integer, Stage.StorageAlign> align, Map<Integer, Integer> phases) {
  public StorageLayout {
    order = List.copyOf(order);
    align = Map.copyOf(align);
    phases = Map.copyOf(phases);
  }

  /** The layout a schedule gave {@code stage}, or null where it is dense and row-major. */
  static StorageLayout of(Stage stage) {
    if (stage.storageOrder().isEmpty()
        && stage.storageAlign().isEmpty()
        && stage.storageDeinterleave().isEmpty()) {
      return null;
    }
    return new StorageLayout(
        stage.storageOrder(), stage.storageAlign(), stage.storageDeinterleave());
  }
}
