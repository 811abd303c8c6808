package dev.kernelgen.autosched;

import static dev.kernelgen.te.TE.FLOAT32;
import static dev.kernelgen.te.TE.INT32;
import static dev.kernelgen.te.TE.INT64;
import static dev.kernelgen.te.TE.cast;
import static dev.kernelgen.te.TE.ceil;
import static dev.kernelgen.te.TE.compute;
import static dev.kernelgen.te.TE.computeN;
import static dev.kernelgen.te.TE.floor;
import static dev.kernelgen.te.TE.max;
import static dev.kernelgen.te.TE.placeholder;
import static dev.kernelgen.te.TE.reduceAxis;
import static dev.kernelgen.te.TE.select;
import static dev.kernelgen.te.TE.shape;
import static dev.kernelgen.te.TE.var;

import dev.kernelgen.te.Expr;
import dev.kernelgen.te.FloatImm;
import dev.kernelgen.te.IntImm;
import dev.kernelgen.te.IterVar;
import dev.kernelgen.te.Tensor;
import dev.kernelgen.te.Var;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.parallel.Execution;
import org.junit.jupiter.api.parallel.ExecutionMode;

/**
 * Data movement as a new user writes it with the DSL: layout changes and permutations, gathers,
 * slices, pads, concatenation, reshapes, nearest and bilinear resampling, and max pooling. Each
 * untuned pick is checked against the oracle on every target: C on the IR interpreter and cc, Java,
 * CUDA and OpenCL on the IR interpreter, CUDA through nvcc to PTX and OpenCL through clang's syntax
 * check; both index widths where dims are symbolic.
 */
@Execution(ExecutionMode.CONCURRENT) // its operators are independent
class NewUserMovementTest extends NewUserSweep {
  static Stream<Op> cases() {
    List<Op> c = new ArrayList<>();
    // NCHW -> NHWC
    {
      Tensor x = placeholder("X", FLOAT32, 2, 5, 7, 3);
      c.add(
          op(
              "nchw_to_nhwc",
              compute("Nhwc", shape(2, 7, 3, 5), (b, h, w, ch) -> x.at(b, ch, h, w))));
    }
    // NCHW -> NHWC symbolic
    {
      Var h = var("h");
      Var w = var("w");
      Tensor x = placeholder("X", FLOAT32, 1, 3, h, w);
      c.add(
          new Op(
              "nchw_to_nhwc_symbolic",
              List.of(compute("NhwcS", shape(1, h, w, 3), (b, i, j, ch) -> x.at(b, ch, i, j))),
              Map.of(h, 13L, w, 37L)));
    }
    // space to depth (block 2)
    {
      Tensor x = placeholder("X", FLOAT32, 1, 3, 6, 10);
      c.add(
          op(
              "space_to_depth",
              compute(
                  "S2D",
                  shape(1, 12, 3, 5),
                  (b, ch, i, j) -> {
                    Expr cin = ch.floormod(3);
                    Expr off = ch.floordiv(3);
                    return x.at(
                        b, cin, i.mul(2).add(off.floordiv(2)), j.mul(2).add(off.floormod(2)));
                  })));
    }
    // depth to space (block 3)
    {
      Tensor x = placeholder("X", FLOAT32, 2, 18, 3, 5);
      c.add(
          op(
              "depth_to_space",
              compute(
                  "D2S",
                  shape(2, 2, 9, 15),
                  (b, ch, i, j) ->
                      x.at(
                          b,
                          ch.mul(9).add(i.floormod(3).mul(3)).add(j.floormod(3)),
                          i.floordiv(3),
                          j.floordiv(3)))));
    }
    // gather rows, symbolic table and index count
    {
      Var n = var("n");
      Var m = var("m");
      Tensor table = placeholder("Table", FLOAT32, n, 7);
      Tensor idx = placeholder("Idx", INT32, m);
      c.add(
          new Op(
              "gather_rows_symbolic",
              List.of(
                  compute("GatherS", shape(m, 7), (i, j) -> table.at(idx.at(i).floormod(n), j))),
              Map.of(n, 13L, m, 37L)));
    }
    // reverse along an axis
    {
      Tensor x = placeholder("X", FLOAT32, 5, 23);
      c.add(
          op("reverse_axis1", compute("Rev", shape(5, 23), (i, j) -> x.at(i, j.mul(-1).add(22)))));
    }
    // roll with wrap-around, symbolic
    {
      Var n = var("n");
      Tensor x = placeholder("X", FLOAT32, 4, n);
      c.add(
          new Op(
              "roll_symbolic",
              List.of(compute("Roll", shape(4, n), (i, j) -> x.at(i, j.sub(5).floormod(n)))),
              Map.of(n, 13L)));
    }
    // concatenation via select
    {
      Tensor a = placeholder("A", FLOAT32, 3, 5);
      Tensor b = placeholder("B", FLOAT32, 3, 7);
      c.add(
          op(
              "concat_select",
              compute(
                  "Concat",
                  shape(3, 12),
                  (i, j) ->
                      select(
                          j.lt(5),
                          a.at(i, j.min(IntImm.of(4))),
                          b.at(i, j.sub(5).max(IntImm.of(0)))))));
    }
    // reflect pad 2
    {
      Tensor x = placeholder("X", FLOAT32, 2, 9, 11);
      c.add(
          op(
              "reflect_pad",
              compute(
                  "Reflect",
                  shape(2, 13, 15),
                  (b, i, j) -> {
                    Expr ii = i.sub(2);
                    Expr jj = j.sub(2);
                    Expr ri =
                        select(ii.lt(0), ii.mul(-1), select(ii.ge(9), IntImm.of(16).sub(ii), ii));
                    Expr rj =
                        select(jj.lt(0), jj.mul(-1), select(jj.ge(11), IntImm.of(20).sub(jj), jj));
                    return x.at(b, ri, rj);
                  })));
    }
    // upsample nearest x3, symbolic
    {
      Var h = var("h");
      Tensor x = placeholder("X", FLOAT32, 2, h, 5);
      c.add(
          new Op(
              "upsample_nearest_symbolic",
              List.of(
                  compute(
                      "UpNearest",
                      shape(2, h.mul(3), 15),
                      (ch, i, j) -> x.at(ch, i.floordiv(3), j.floordiv(3)))),
              Map.of(h, 7L)));
    }
    // bilinear upsample (align corners false), 5x7 -> 11x13
    {
      Tensor x = placeholder("X", FLOAT32, 3, 5, 7);
      c.add(
          op(
              "upsample_bilinear",
              compute(
                  "Bilinear",
                  shape(3, 11, 13),
                  (ch, i, j) -> {
                    Expr fy =
                        cast(FLOAT32, i)
                            .add(0.5)
                            .mul(5.0 / 11.0)
                            .sub(0.5)
                            .max(new FloatImm(FLOAT32, 0));
                    Expr fx =
                        cast(FLOAT32, j)
                            .add(0.5)
                            .mul(7.0 / 13.0)
                            .sub(0.5)
                            .max(new FloatImm(FLOAT32, 0));
                    Expr y0 = cast(INT32, floor(fy));
                    Expr x0 = cast(INT32, floor(fx));
                    Expr y1 = y0.add(1).min(IntImm.of(4));
                    Expr x1 = x0.add(1).min(IntImm.of(6));
                    Expr wy = fy.sub(cast(FLOAT32, y0));
                    Expr wx = fx.sub(cast(FLOAT32, x0));
                    Expr top =
                        x.at(ch, y0, x0)
                            .mul(new FloatImm(FLOAT32, 1).sub(wx))
                            .add(x.at(ch, y0, x1).mul(wx));
                    Expr bot =
                        x.at(ch, y1, x0)
                            .mul(new FloatImm(FLOAT32, 1).sub(wx))
                            .add(x.at(ch, y1, x1).mul(wx));
                    return top.mul(new FloatImm(FLOAT32, 1).sub(wy)).add(bot.mul(wy));
                  })));
    }
    // strided slice
    {
      Tensor x = placeholder("X", FLOAT32, 3, 31, 20);
      c.add(
          op(
              "strided_slice",
              compute(
                  "Strided",
                  shape(3, 10, 6),
                  (b, i, j) -> x.at(b, i.mul(3).add(1), j.mul(3).add(2)))));
    }
    // diagonal extraction, batch
    {
      Tensor x = placeholder("X", FLOAT32, 5, 11, 13);
      c.add(op("diagonal", compute("Diag", shape(5, 11), (b, i) -> x.at(b, i, i))));
    }
    // outer product, symbolic
    {
      Var n = var("n");
      Var m = var("m");
      Tensor a = placeholder("A", FLOAT32, n);
      Tensor b = placeholder("B", FLOAT32, m);
      c.add(
          new Op(
              "outer_symbolic",
              List.of(compute("Outer", shape(n, m), (i, j) -> a.at(i).mul(b.at(j)))),
              Map.of(n, 13L, m, 37L)));
    }
    // rank-5 permutation
    {
      Tensor x = placeholder("X", FLOAT32, 2, 3, 1, 5, 7);
      c.add(
          op(
              "rank5_permute",
              computeN(
                  "Perm5",
                  shape(7, 1, 2, 5, 3),
                  ix -> x.at(ix.get(2), ix.get(4), ix.get(1), ix.get(3), ix.get(0)))));
    }
    // max pool 2x2 stride 2 on odd sizes (floor), symbolic
    {
      Var h = var("h");
      Tensor x = placeholder("X", FLOAT32, 1, 3, h, 11);
      IterVar ry = reduceAxis(2, "ry");
      IterVar rx = reduceAxis(2, "rx");
      c.add(
          new Op(
              "maxpool2x2_symbolic",
              List.of(
                  compute(
                      "Pool",
                      shape(1, 3, h.floordiv(2), 5),
                      (b, ch, i, j) ->
                          max(
                              x.at(b, ch, i.mul(2).add(ry.var()), j.mul(2).add(rx.var())),
                              ry,
                              rx))),
              Map.of(h, 13L)));
    }
    // gather through an int64 index tensor
    {
      Tensor table = placeholder("Table", FLOAT32, 10, 6);
      Tensor idx = placeholder("Idx", INT64, 5);
      c.add(
          op(
              "gather_i64_index",
              compute("G64", shape(5, 6), (i, j) -> table.at(idx.at(i).add(8L).floormod(10L), j))));
    }
    // identity copy of an input
    {
      Tensor x = placeholder("X", FLOAT32, 4, 6);
      c.add(op("identity_copy", compute("Copy", x.shape(), (i, j) -> x.at(i, j))));
    }
    // reshape [n, m] -> [n*m] and back with symbolic dims
    {
      Var n = var("n");
      Var m = var("m");
      Tensor x = placeholder("X", FLOAT32, n, m);
      Tensor flat =
          compute("Flat", shape(n.mul(m)), i -> x.at(i.floordiv(m), i.floormod(m)).mul(2.0));
      c.add(new Op("flatten_symbolic", List.of(flat), Map.of(n, 13L, m, 37L)));
      Tensor y = placeholder("Y", FLOAT32, n.mul(m));
      c.add(
          new Op(
              "unflatten_symbolic",
              List.of(compute("Unflat", shape(m, n), (a, b) -> y.at(b.mul(m).add(a)))),
              Map.of(n, 13L, m, 37L)));
    }
    // reshape [3,5,7] -> [15, 7] -> [105] constant via floordiv/floormod chain
    {
      Tensor x = placeholder("X", FLOAT32, 3, 5, 7);
      c.add(
          op(
              "flatten3_constant",
              compute(
                  "Flat3",
                  shape(105),
                  i -> x.at(i.floordiv(35), i.floordiv(7).floormod(5), i.floormod(7)))));
    }
    // ceil-derived index (nearest with ceil)
    {
      Tensor x = placeholder("X", FLOAT32, 2, 9);
      c.add(
          op(
              "ceil_index",
              compute(
                  "CeilIdx",
                  shape(2, 17),
                  (i, j) ->
                      x.at(i, cast(INT32, ceil(cast(FLOAT32, j).mul(0.5))).min(IntImm.of(8))))));
    }
    // concat via select without clamps (the else branch is guarded by the negation)
    {
      Tensor a = placeholder("A", FLOAT32, 3, 5);
      Tensor b = placeholder("B", FLOAT32, 3, 7);
      c.add(
          op(
              "concat_select_unclamped",
              compute(
                  "ConcatU",
                  shape(3, 12),
                  (i, j) -> select(j.lt(5), a.at(i, j), b.at(i, j.sub(5))))));
    }
    return c.stream();
  }
}
