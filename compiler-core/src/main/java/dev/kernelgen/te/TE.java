package dev.kernelgen.te;

import dev.kernelgen.diag.UserError;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * The tensor-expression DSL: placeholders, compute, reduce axes and reductions, select, casts and
 * math intrinsics. Import statically: {@code import static dev.kernelgen.te.TE.*;}
 *
 * <pre>{@code
 * Var n = var("n");
 * Tensor a = placeholder("A", FLOAT32, n, 64);
 * IterVar k = reduceAxis(64, "k");
 * Tensor rowSum = compute("RowSum", shape(n), i -> sum(a.at(i, k.var()), k));
 * }</pre>
 */
public final class TE {
  private TE() {}

  public static final DType BOOL = DType.BOOL;
  public static final DType INT32 = DType.INT32;
  public static final DType INT64 = DType.INT64;
  public static final DType FLOAT32 = DType.FLOAT32;
  public static final DType FLOAT64 = DType.FLOAT64;

  /** Body of a one-dimensional compute. */
  @FunctionalInterface
  public interface Body1 {
    Expr apply(Var i);
  }

  /** Body of a two-dimensional compute. */
  @FunctionalInterface
  public interface Body2 {
    Expr apply(Var i, Var j);
  }

  /** Body of a three-dimensional compute. */
  @FunctionalInterface
  public interface Body3 {
    Expr apply(Var i, Var j, Var k);
  }

  /** Body of a four-dimensional compute. */
  @FunctionalInterface
  public interface Body4 {
    Expr apply(Var i, Var j, Var k, Var l);
  }

  /** Body of a compute of any rank. */
  @FunctionalInterface
  public interface BodyN {
    Expr apply(List<Var> indices);
  }

  /**
   * A symbolic dim (int32), bound at launch time from the actual tensors. Its name must be a
   * lower-case Java identifier ({@code [a-z][A-Za-z0-9_]*}: {@code n}, {@code batch}, {@code
   * inChannels}), since it names a variable of the generated launcher; the build rejects any other
   * name of a dim.
   */
  public static Var var(String name) {
    return new Var(name, DType.INT32);
  }

  /** An expression from an {@link Expr}, a Java integer, a float or a double. */
  public static Expr expr(Object o) {
    return switch (o) {
      case Expr e -> e;
      case Integer i -> IntImm.of(i);
      case Long l -> IntImm.of(DType.INT64, l);
      case Float f -> FloatImm.f32(f);
      case Double d -> FloatImm.f64(d);
      case Boolean b -> IntImm.ofBool(b);
      default ->
          throw new UserError(
              "cannot use " + o + " (" + o.getClass().getName() + ") as an expression");
    };
  }

  /** A shape from dims that are {@link Expr}s or Java integers. */
  public static List<Expr> shape(Object... dims) {
    List<Expr> out = new ArrayList<>();
    for (Object d : dims) {
      Expr e = expr(d);
      if (!e.dtype().isInt()) {
        throw new UserError(
            String.format("a dim must be an integer, got %s: %s", e.dtype(), e.show()));
      }
      if (e instanceof IntImm i) {
        UserError.check(i.value() > 0, "a dim must be positive, got %d", i.value());
      }
      out.add(e);
    }
    return out;
  }

  public static Tensor placeholder(String name, DType dtype, Object... dims) {
    return placeholder(name, dtype, shape(dims));
  }

  public static Tensor placeholder(String name, DType dtype, List<Expr> shape) {
    checkName(name);
    checkRank(name, shape);
    return new PlaceholderOp(name, shape(shape.toArray()), dtype).output();
  }

  public static Tensor compute(String name, List<Expr> shape, Body1 body) {
    return computeArity(name, shape, i -> body.apply(i.get(0)), 1);
  }

  public static Tensor compute(String name, List<Expr> shape, Body2 body) {
    return computeArity(name, shape, i -> body.apply(i.get(0), i.get(1)), 2);
  }

  public static Tensor compute(String name, List<Expr> shape, Body3 body) {
    return computeArity(name, shape, i -> body.apply(i.get(0), i.get(1), i.get(2)), 3);
  }

  public static Tensor compute(String name, List<Expr> shape, Body4 body) {
    return computeArity(name, shape, i -> body.apply(i.get(0), i.get(1), i.get(2), i.get(3)), 4);
  }

  /** A compute of any rank: the body gets the list of index variables, one per dim. */
  public static Tensor computeN(String name, List<Expr> shape, BodyN body) {
    return computeArity(name, shape, body, shape.size());
  }

  private static Tensor computeArity(String name, List<Expr> shape, BodyN body, int arity) {
    checkName(name);
    checkRank(name, shape);
    UserError.check(
        shape.size() == arity,
        "compute '%s' has %d dims but its body takes %d indices",
        name,
        shape.size(),
        arity);
    String[] names = axisNames(shape.size());
    List<IterVar> axis = new ArrayList<>();
    List<Var> vars = new ArrayList<>();
    for (int d = 0; d < shape.size(); d++) {
      Expr extent = shape(shape.get(d)).get(0);
      Var v = new Var(names[d], extent.dtype());
      vars.add(v);
      axis.add(new IterVar(v, Range.fromExtent(extent), IterVar.Kind.DATA_PAR));
    }
    Expr e = body.apply(List.copyOf(vars));
    UserError.check(e != null, "compute '%s': the body returned null", name);
    return new ComputeOp(name, axis, NestedReductions.lift(name, axis, e), "").output();
  }

  private static String[] axisNames(int n) {
    String[] base = {"i", "j", "k", "l", "m", "n"};
    String[] out = new String[n];
    for (int d = 0; d < n; d++) {
      out[d] = d < base.length ? base[d] : "ax" + d;
    }
    return out;
  }

  /**
   * Tensors have at least one dim, as a reduction over every axis lifted out of an expression has
   * one of extent 1 ({@link NestedReductions}): the schedules, the launchers and the host tensors
   * all index by dims.
   */
  private static void checkRank(String name, List<Expr> shape) {
    UserError.check(
        !shape.isEmpty(),
        "tensor '%s' has no dims (rank 0): a tensor has at least one; declare a scalar as shape(1)"
            + " and read it at(0)",
        name);
  }

  private static void checkName(String name) {
    UserError.check(
        name != null && name.matches("[A-Za-z_][A-Za-z0-9_.]*"),
        "tensor name '%s' is not an identifier",
        name);
  }

  /** A reduce axis over {@code [0, extent)}. */
  public static IterVar reduceAxis(Object extent, String name) {
    Expr e = shape(extent).get(0);
    return new IterVar(Var.reduceAxis(name, e.dtype()), Range.fromExtent(e), IterVar.Kind.REDUCE);
  }

  /** A reduce axis over {@code [min, min + extent)}. */
  public static IterVar reduceAxis(Object min, Object extent, String name) {
    Expr e = shape(extent).get(0);
    return new IterVar(
        Var.reduceAxis(name, e.dtype()), new Range(expr(min), e), IterVar.Kind.REDUCE);
  }

  public static Expr sum(Expr source, IterVar... axes) {
    return reduce(Reducer.sum(source.dtype()), source, axes);
  }

  public static Expr max(Expr source, IterVar... axes) {
    return reduce(Reducer.max(source.dtype()), source, axes);
  }

  public static Expr min(Expr source, IterVar... axes) {
    return reduce(Reducer.min(source.dtype()), source, axes);
  }

  /**
   * A reduction with any commutative, associative combiner. A source that selects the combiner's
   * identity where a condition on indices alone fails ({@code sum(select(k <= j, x[i, k], 0), k)}:
   * a prefix sum, a causal mask) reduces over the points where it holds: the condition becomes the
   * reduction's ({@link #reduceWhere}), and the loops skip the rest instead of adding zeros. A
   * window's padding ({@code sum(select(i + ky - 1 >= 0 && ..., x[...], 0), ky, kx)}) stays a
   * select: it fails at the borders only, and as bounds it made every output's loop its own (on an
   * H100 a padded 3x3 average pool's naive kernel, its window no longer unrolled, 5.4 -> 12.3 us).
   */
  public static Expr reduce(Reducer combiner, Expr source, IterVar... axes) {
    return reduceWhere(combiner, source, IntImm.ofBool(true), axes);
  }

  /** A reduction over the points where {@code where} holds. */
  public static Expr reduceWhere(Reducer combiner, Expr source, Expr where, IterVar... axes) {
    while (source instanceof Select s
        && s.falseValue().equals(combiner.identity())
        && maskOf(s.cond(), axes)) {
      where = where instanceof IntImm t && t.value() == 1 ? s.cond() : where.and(s.cond());
      source = s.trueValue();
    }
    return new Reduce(combiner, source, List.of(axes), where);
  }

  /** Whether {@code cond} reads no tensor and depends on one of the reduction's {@code axes}. */
  private static boolean maskOf(Expr cond, IterVar... axes) {
    boolean[] reads = {false};
    new ExprVisitor() {
      @Override
      public void visit(Expr e) {
        reads[0] |= e instanceof TensorRead || e instanceof Load || e instanceof Call;
        super.visit(e);
      }
    }.visit(cond);
    return !reads[0]
        && java.util.Arrays.stream(axes).anyMatch(a -> FreeVars.uses(cond, a.var()))
        && !padding(cond, axes);
  }

  /**
   * Whether {@code cond} is a window's padding: comparisons only, in each of which every reduce
   * axis moves the same way as the output's indices ({@code i + ky - 1 >= 0}), so that it fails
   * only where the window overhangs a border. A mask (a reduce axis against an output index, {@code
   * k <= j}), a bound on the reduce axes alone, or anything else is not.
   */
  private static boolean padding(Expr cond, IterVar... axes) {
    Set<Var> reduce = new HashSet<>();
    for (IterVar a : axes) {
      reduce.add(a.var());
    }
    for (Expr c : conjuncts(cond)) {
      if (!(c instanceof Binary b)
          || !b.op().isComparison()
          || b.op() == BinOp.EQ
          || b.op() == BinOp.NE
          || !b.a().dtype().isInt()) {
        return false;
      }
      Expr d = b.a().sub(b.b());
      Set<Integer> reduceSigns = new HashSet<>();
      Set<Integer> otherSigns = new HashSet<>();
      for (Var v : FreeVars.of(d)) {
        Integer sign = sign(d, v);
        if (sign == null) {
          return false;
        }
        (reduce.contains(v) ? reduceSigns : otherSigns).add(sign);
      }
      if (otherSigns.isEmpty() || reduceSigns.size() > 1 || !otherSigns.equals(reduceSigns)) {
        return false;
      }
    }
    return true;
  }

  /** The sign of {@code v}'s coefficient in the linear expression {@code e}, or null. */
  private static Integer sign(Expr e, Var v) {
    if (!FreeVars.uses(e, v)) {
      return 0;
    }
    if (e.equals(v)) {
      return 1;
    }
    if (!(e instanceof Binary b)) {
      return null;
    }
    Integer x = sign(b.a(), v);
    Integer y = sign(b.b(), v);
    if (x == null || y == null) {
      return null;
    }
    return switch (b.op()) {
      case ADD -> x * y < 0 ? null : Integer.signum(x + y);
      case SUB -> x * y > 0 ? null : Integer.signum(x - y);
      case MUL ->
          b.b() instanceof IntImm k && k.value() != 0
              ? x * Long.signum(k.value())
              : b.a() instanceof IntImm k2 && k2.value() != 0 ? y * Long.signum(k2.value()) : null;
      default -> null;
    };
  }

  public static Expr select(Expr cond, Object ifTrue, Object ifFalse) {
    Expr t = expr(ifTrue);
    Expr f = expr(ifFalse);
    if (t.dtype() != f.dtype()) {
      if (f instanceof FloatImm fi && t.dtype().isFloat()) {
        f = new FloatImm(t.dtype(), fi.value());
      } else if (t instanceof FloatImm ti && f.dtype().isFloat()) {
        t = new FloatImm(f.dtype(), ti.value());
      } else if (f instanceof IntImm fi && !t.dtype().isBool()) {
        f = IntImm.like(t, fi.value());
      } else if (t instanceof IntImm ti && !f.dtype().isBool()) {
        t = IntImm.like(f, ti.value());
      }
    }
    return new Select(cond, t, f);
  }

  /** The conjunction of the conditions ({@code true} for none). */
  public static Expr all(Expr... conds) {
    Expr out = IntImm.ofBool(true);
    for (int k = 0; k < conds.length; k++) {
      out = k == 0 ? conds[0] : out.and(conds[k]);
    }
    return out;
  }

  /**
   * The terms of a conjunction, {@code a && b && c} as {@code [a, b, c]}: {@link #all}'s inverse.
   */
  public static List<Expr> conjuncts(Expr e) {
    List<Expr> out = new ArrayList<>();
    if (e instanceof Binary b && b.op() == BinOp.AND) {
      out.addAll(conjuncts(b.a()));
      out.addAll(conjuncts(b.b()));
    } else {
      out.add(e);
    }
    return out;
  }

  /** The disjunction of the conditions ({@code false} for none). */
  public static Expr any(Expr... conds) {
    Expr out = IntImm.ofBool(false);
    for (int k = 0; k < conds.length; k++) {
      out = k == 0 ? conds[0] : out.or(conds[k]);
    }
    return out;
  }

  public static Expr cast(DType dtype, Expr value) {
    return Cast.of(dtype, value);
  }

  public static Expr exp(Expr x) {
    return new Call(Intrinsic.EXP, List.of(x));
  }

  public static Expr log(Expr x) {
    return new Call(Intrinsic.LOG, List.of(x));
  }

  public static Expr sqrt(Expr x) {
    return new Call(Intrinsic.SQRT, List.of(x));
  }

  public static Expr tanh(Expr x) {
    return new Call(Intrinsic.TANH, List.of(x));
  }

  public static Expr pow(Expr x, Expr y) {
    return new Call(Intrinsic.POW, List.of(x, y));
  }

  public static Expr abs(Expr x) {
    if (x.dtype().isInt()) {
      return select(x.lt(0), IntImm.like(x, 0).sub(x), x);
    }
    return new Call(Intrinsic.ABS, List.of(x));
  }

  public static Expr floor(Expr x) {
    return new Call(Intrinsic.FLOOR, List.of(x));
  }

  public static Expr ceil(Expr x) {
    return new Call(Intrinsic.CEIL, List.of(x));
  }

  public static Expr f32(double v) {
    return FloatImm.f32(v);
  }

  public static Expr i32(long v) {
    return IntImm.of(v);
  }

  /** The elementwise maximum (for the reduction, see {@link #max(Expr, IterVar...)}). */
  public static Expr maximum(Expr a, Object b) {
    return a.max(expr(b));
  }

  /** The elementwise minimum (for the reduction, see {@link #min(Expr, IterVar...)}). */
  public static Expr minimum(Expr a, Object b) {
    return a.min(expr(b));
  }
}
