package dev.kernelgen.lower;

import static dev.kernelgen.te.TE.*;

import dev.kernelgen.annotations.Target;
import dev.kernelgen.schedule.Schedule;
import dev.kernelgen.schedule.Stage;
import dev.kernelgen.te.Tensor;
import dev.kernelgen.topi.Nn;
import dev.kernelgen.topi.Padding;
import org.junit.jupiter.api.Test;

class ScratchTest {
  @Test
  void print() {
    Tensor in = placeholder("Input", FLOAT32, 1, 4, 23, 17);
    Tensor f = placeholder("Filter", FLOAT32, 4, 1, 3, 3);
    Tensor out = Nn.depthwiseConv2dNchw(in, f, 1, 1, Padding.same(23, 17, 3, 3, 1, 1, 1), 1);
    Schedule s = Schedule.create(out);
    Stage so = s.stage(out);
    var sp = so.split(so.axis(2), 8);
    s.stage(out.op().inputs().get(0)).computeAt(so, sp.outer());
    System.out.println(
        Lower.lower(s, "dw", java.util.List.of(in, f, out), Target.C, System.out::println));
  }
}
