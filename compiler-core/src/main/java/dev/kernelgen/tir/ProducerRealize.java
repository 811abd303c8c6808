package dev.kernelgen.tir;

import dev.kernelgen.te.MemoryScope;
import dev.kernelgen.te.Range;
import dev.kernelgen.te.Tensor;
import java.util.List;

/**
 * The region of a tensor that {@code body} produces and reads, in memory scope {@code scope}.
 * Exists before storage flattening, which turns it into an {@link Allocate}.
 */
public record ProducerRealize(Tensor tensor, List<Range> bounds, MemoryScope scope, Stmt body)
    implements Stmt {
  public ProducerRealize {
    bounds = List.copyOf(bounds);
  }
}
