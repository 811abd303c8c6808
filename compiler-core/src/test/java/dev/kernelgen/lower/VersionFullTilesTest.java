package dev.kernelgen.lower;

import static dev.kernelgen.te.TE.*;
import static org.assertj.core.api.Assertions.assertThat;

import dev.kernelgen.annotations.Target;
import dev.kernelgen.autosched.AutoScheduler;
import dev.kernelgen.schedule.Schedule;
import dev.kernelgen.te.IntImm;
import dev.kernelgen.te.Tensor;
import dev.kernelgen.te.Var;
import dev.kernelgen.testing.Check;
import dev.kernelgen.tir.For;
import dev.kernelgen.tir.ForKind;
import dev.kernelgen.tir.IfThenElse;
import dev.kernelgen.tir.PrimFunc;
import dev.kernelgen.tir.Stmt;
import dev.kernelgen.tir.StmtVisitor;
import dev.kernelgen.topi.Conv;
import dev.kernelgen.topi.Elementwise;
import dev.kernelgen.topi.OpSchedules;
import dev.kernelgen.topi.Padding;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * {@link VersionFullTiles}: a C kernel over symbolic extents runs its full tiles through loops of
 * constant trip count, and its last, ragged tiles through the loops as they were; both match the
 * oracle.
 */
class VersionFullTilesTest {
  private static final Var N = var("n");
  private static final Var C = var("c");
  private static final Var H = var("h");
  private static final Var W = var("w");
  private static final Var K = var("k");

  /** A 3x3 convolution with relu over symbolic n, c, h, w to k channels: the packed layout. */
  private static Schedule convRelu() {
    Tensor in = placeholder("In", FLOAT32, N, C, H, W);
    Tensor f = placeholder("F", FLOAT32, K, C, 3, 3);
    Tensor out = Elementwise.relu(Conv.conv2dNchw(in, f, 1, 1, new Padding(1, 1, 1, 1), 1));
    return AutoScheduler.untuned(Target.C, List.of(out));
  }

  /** The vectorized loops of {@code s}. */
  private static List<For> vectorLoops(Stmt s) {
    List<For> out = new ArrayList<>();
    new StmtVisitor() {
      @Override
      public void visit(Stmt x) {
        if (x instanceof For f && f.kind() == ForKind.VECTORIZED) {
          out.add(f);
        }
        super.visit(x);
      }
    }.visit(s);
    return out;
  }

  @Test
  void fullTilesRunLoopsOfConstantTripCountAndTheRaggedOnesTheLoopsAsTheyWere() {
    Schedule s = convRelu();
    PrimFunc f = Lower.lower(s, "conv", OpSchedules.args(s), Target.C, IndexWidth.NARROW, null);
    List<IfThenElse> versions = new ArrayList<>();
    new StmtVisitor() {
      @Override
      public void visit(Stmt x) {
        if (x instanceof IfThenElse i
            && i.elseCase() != null
            && !vectorLoops(i.thenCase()).isEmpty()
            && vectorLoops(i.thenCase()).stream().allMatch(l -> l.extent() instanceof IntImm)
            && vectorLoops(i.elseCase()).stream().anyMatch(l -> !(l.extent() instanceof IntImm))) {
          versions.add(i);
        }
        super.visit(x);
      }
    }.visit(f.body());
    // The accumulator tile's nest; outside it, the panel's packing.
    assertThat(versions).isNotEmpty();
    assertThat(versions.stream().mapToInt(v -> vectorLoops(v.thenCase()).size()).max().getAsInt())
        .isGreaterThan(8);
  }

  @Test
  void fullAndRaggedTilesMatchTheOracle() {
    Schedule s = convRelu();
    // 70 channels: a full tile of 64 and a ragged one of 6; 9 rows: two full tiles and one row.
    for (Map<Var, Long> dims :
        List.of(
            Map.of(N, 2L, C, 3L, H, 9L, W, 5L, K, 70L),
            Map.of(N, 1L, C, 1L, H, 1L, W, 1L, K, 1L))) {
      Check.check(s, OpSchedules.args(s), dims, EnumSet.of(Check.Backend.C), 1e-4, 1e-4);
    }
  }
}
