package dev.kernelgen.lower;

import static dev.kernelgen.te.TE.*;
import static org.assertj.core.api.Assertions.assertThat;

import dev.kernelgen.annotations.Target;
import dev.kernelgen.schedule.Schedule;
import dev.kernelgen.schedule.Stage;
import dev.kernelgen.schedule.ThreadTag;
import dev.kernelgen.te.Buffer;
import dev.kernelgen.te.Expr;
import dev.kernelgen.te.FloatImm;
import dev.kernelgen.te.IntImm;
import dev.kernelgen.te.IterVar;
import dev.kernelgen.te.Load;
import dev.kernelgen.te.MemoryScope;
import dev.kernelgen.te.Tensor;
import dev.kernelgen.te.Var;
import dev.kernelgen.tir.Allocate;
import dev.kernelgen.tir.For;
import dev.kernelgen.tir.ForKind;
import dev.kernelgen.tir.LetStmt;
import dev.kernelgen.tir.Seq;
import dev.kernelgen.tir.Stmt;
import dev.kernelgen.tir.StmtVisitor;
import dev.kernelgen.tir.Store;
import java.util.ArrayList;
import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * Before/expected IR text for the lowering steps (TVM's CompareBeforeAfter, Halide's {@code
 * check(input, expected)}): each test names the IR a pass gets and the IR it must give back.
 *
 * <p>The IR of a lowering step comes from the {@code dump} consumer of {@link Lower#lower}; passes
 * whose interesting cases are easier to state by hand are called directly on hand-built IR.
 */
class PassIrTest {

  // ---- helpers ----

  /** The IR after each step of lowering {@code s} that changed it, by step name. */
  static Map<String, String> dumps(Schedule s, Target target) {
    Map<String, String> out = new LinkedHashMap<>();
    List<Tensor> args = new ArrayList<>(s.inputs());
    args.addAll(s.outputs());
    Lower.lower(
        s,
        "f",
        args,
        target,
        d -> {
          int nl = d.indexOf('\n');
          String head = d.substring(0, nl);
          assertThat(head).startsWith("after ").endsWith(":");
          out.put(head.substring("after ".length(), head.length() - 1), d.substring(nl + 1));
        });
    return out;
  }

  /** The IR that {@code pass} received: the last dump before its own. */
  private static String before(Map<String, String> dumps, String pass) {
    String prev = null;
    for (var e : dumps.entrySet()) {
      if (e.getKey().equals(pass)) {
        return prev;
      }
      prev = e.getValue();
    }
    throw new AssertionError("pass " + pass + " did not change the IR; dumps: " + dumps.keySet());
  }

  /** Compares a pass's output with the expected text; on failure prints all three. */
  private static void check(String pass, String input, String output, String expected) {
    if (!expected.equals(output)) {
      throw new AssertionError(
          "pass "
              + pass
              + " gave unexpected IR\n--- input:\n"
              + input
              + "--- output:\n"
              + output
              + "--- expected:\n"
              + expected);
    }
  }

  private static void checkPass(Map<String, String> dumps, String pass, String expected) {
    String out = dumps.get(pass);
    if (out == null) {
      throw new AssertionError("pass " + pass + " did not change the IR; dumps: " + dumps);
    }
    check(
        pass, pass.equals("schedule_ops") ? "(the schedule)" : before(dumps, pass), out, expected);
  }

  private static void checkPass(String pass, Stmt input, Stmt output, String expected) {
    check(pass, input.show(), output.show(), expected);
  }

  // ---- schedule_ops ----

  @Test
  void splitThatDoesNotDivideGuardsOnlyTheLoopsInsideItsInnerLoop() {
    Tensor a = placeholder("A", FLOAT32, 10, 3);
    Tensor b = compute("B", shape(10, 3), (i, j) -> a.at(i, j).add(1.0f));
    Schedule s = Schedule.create(b);
    s.stage(b).split(s.stage(b).axis(0), 4);
    checkPass(
        dumps(s, Target.C),
        "schedule_ops",
        """
        for i.outer in [0, 3) {
          for i.inner in [0, 4) {
            if (((i.outer * 4) + i.inner) < 10) {
              for j in [0, 3) {
                B[((i.outer * 4) + i.inner), j] = (A[((i.outer * 4) + i.inner), j] + 1.0f)
              }
            }
          }
        }
        """);
  }

  @Test
  void splitThatDividesHasNoGuard() {
    Tensor a = placeholder("A", FLOAT32, 12, 3);
    Tensor b = compute("B", shape(12, 3), (i, j) -> a.at(i, j).add(1.0f));
    Schedule s = Schedule.create(b);
    s.stage(b).split(s.stage(b).axis(0), 4);
    checkPass(
        dumps(s, Target.C),
        "schedule_ops",
        """
        for i.outer in [0, 3) {
          for i.inner in [0, 4) {
            for j in [0, 3) {
              B[((i.outer * 4) + i.inner), j] = (A[((i.outer * 4) + i.inner), j] + 1.0f)
            }
          }
        }
        """);
  }

  @Test
  void guardOfAnInnerAxisSplitSitsInItsInnermostLoop() {
    Tensor a = placeholder("A", FLOAT32, 3, 10);
    Tensor b = compute("B", shape(3, 10), (i, j) -> a.at(i, j).add(1.0f));
    Schedule s = Schedule.create(b);
    Stage sb = s.stage(b);
    Stage.Split y = sb.split(sb.axis(1), 4);
    sb.reorder(y.outer(), sb.axis(0), y.inner());
    checkPass(
        dumps(s, Target.C),
        "schedule_ops",
        """
        for j.outer in [0, 3) {
          for i in [0, 3) {
            for j.inner in [0, 4) {
              if (((j.outer * 4) + j.inner) < 10) {
                B[i, ((j.outer * 4) + j.inner)] = (A[i, ((j.outer * 4) + j.inner)] + 1.0f)
              }
            }
          }
        }
        """);
  }

  @Test
  void computeAtOfAStencilRealizesItsRegionWithTheHalo() {
    Tensor a = placeholder("A", FLOAT32, 12);
    Tensor b = compute("B", shape(12), i -> a.at(i).mul(2.0f));
    Tensor c = compute("C", shape(10), i -> b.at(i).add(b.at(i.add(1))).add(b.at(i.add(2))));
    Schedule s = Schedule.create(c);
    Stage.Split sp = s.stage(c).split(s.stage(c).axis(0), 4);
    s.stage(b).computeAt(s.stage(c), sp.outer());
    // Four outputs need six inputs; the last tile (outputs 8, 9) would read B[8..13]: guarded.
    checkPass(
        dumps(s, Target.C),
        "schedule_ops",
        """
        for i.outer in [0, 3) {
          realize B[(i.outer * 4):6] global {
            for i in [0, 6) {
              if (((i + (i.outer * 4)) >= 0) && ((i + (i.outer * 4)) < 12)) {
                B[(i + (i.outer * 4))] = (A[(i + (i.outer * 4))] * 2.0f)
              }
            }
            for i.inner in [0, 4) {
              if (((i.outer * 4) + i.inner) < 10) {
                C[((i.outer * 4) + i.inner)] = ((B[((i.outer * 4) + i.inner)] + B[(((i.outer * 4) + i.inner) + 1)]) + B[(((i.outer * 4) + i.inner) + 2)])
              }
            }
          }
        }
        """);
  }

  @Test
  void computeAtTheInnermostLoopRealizesOnePointPlusHalo() {
    Tensor a = placeholder("A", FLOAT32, 7);
    Tensor b = compute("B", shape(7), i -> a.at(i).mul(2.0f));
    Tensor c = compute("C", shape(5), i -> b.at(i).add(b.at(i.add(2))));
    Schedule s = Schedule.create(c);
    s.stage(b).computeAt(s.stage(c), s.stage(c).axis(0));
    checkPass(
        dumps(s, Target.C),
        "schedule_ops",
        """
        for i in [0, 5) {
          realize B[i:3] global {
            for i in [0, 3) {
              if (((i + i) >= 0) && ((i + i) < 7)) {
                B[(i + i)] = (A[(i + i)] * 2.0f)
              }
            }
            C[i] = (B[i] + B[(i + 2)])
          }
        }
        """);
  }

  private static Tensor[] matmul() {
    Tensor a = placeholder("A", FLOAT32, 4, 5);
    Tensor b = placeholder("B", FLOAT32, 5, 3);
    IterVar k = reduceAxis(5, "k");
    Tensor c = compute("C", shape(4, 3), (i, j) -> sum(a.at(i, k.var()).mul(b.at(k.var(), j)), k));
    return new Tensor[] {a, b, c};
  }

  @Test
  void reductionInitGoesBeforeTheReduceLoopWithTheDataLoopsInsideIt() {
    Tensor c = matmul()[2];
    Schedule s = Schedule.create(c);
    Stage sc = s.stage(c);
    sc.reorder(sc.axis(0), sc.reduceAxis(0), sc.axis(1));
    checkPass(
        dumps(s, Target.C),
        "schedule_ops",
        """
        for i in [0, 4) {
          for j in [0, 3) {
            C[i, j] = 0.0f
          }
          for k in [0, 5) {
            for j in [0, 3) {
              C[i, j] = (C[i, j] + (A[i, k] * B[k, j]))
            }
          }
        }
        """);
  }

  @Test
  void reductionInitWhenTheReduceLoopIsOutermost() {
    Tensor c = matmul()[2];
    Schedule s = Schedule.create(c);
    Stage sc = s.stage(c);
    sc.reorder(sc.reduceAxis(0), sc.axis(0), sc.axis(1));
    checkPass(
        dumps(s, Target.C),
        "schedule_ops",
        """
        for i in [0, 4) {
          for j in [0, 3) {
            C[i, j] = 0.0f
          }
        }
        for k in [0, 5) {
          for i in [0, 4) {
            for j in [0, 3) {
              C[i, j] = (C[i, j] + (A[i, k] * B[k, j]))
            }
          }
        }
        """);
  }

  @Test
  void reductionInitKeepsTheGuardOfASplitDataAxisInsideTheReduceLoop() {
    Tensor a = placeholder("A", FLOAT32, 5, 3);
    IterVar k = reduceAxis(3, "k");
    Tensor r = compute("S", shape(5), i -> sum(a.at(i, k.var()), k));
    Schedule s = Schedule.create(r);
    Stage sr = s.stage(r);
    Stage.Split x = sr.split(sr.axis(0), 2);
    sr.reorder(x.outer(), k, x.inner());
    checkPass(
        dumps(s, Target.C),
        "schedule_ops",
        """
        for i.outer in [0, 3) {
          for i.inner in [0, 2) {
            if (((i.outer * 2) + i.inner) < 5) {
              S[((i.outer * 2) + i.inner)] = 0.0f
            }
          }
          for k in [0, 3) {
            for i.inner in [0, 2) {
              if (((i.outer * 2) + i.inner) < 5) {
                S[((i.outer * 2) + i.inner)] = (S[((i.outer * 2) + i.inner)] + A[((i.outer * 2) + i.inner), k])
              }
            }
          }
        }
        """);
  }

  // ---- storage_flatten ----

  @Test
  void storageFlattenAllocatesTheRegionAndIndexesFromItsNonzeroMin() {
    Tensor a = placeholder("A", FLOAT32, 9, 8);
    Tensor bx = compute("BX", shape(9, 6), (i, j) -> a.at(i, j).add(a.at(i, j.add(2))));
    Tensor by = compute("BY", shape(7, 6), (i, j) -> bx.at(i, j).add(bx.at(i.add(2), j)));
    Schedule s = Schedule.create(by);
    Stage sy = s.stage(by);
    Stage.Tile t = sy.tile(sy.axis(0), sy.axis(1), 4, 4);
    s.stage(bx).computeAt(sy, t.yOuter());
    Map<String, String> d = dumps(s, Target.C);
    checkPass(
        d,
        "schedule_ops",
        """
        for i.outer in [0, 2) {
          for j.outer in [0, 2) {
            realize BX[(i.outer * 4):6, (j.outer * 4):4] global {
              for i in [0, 6) {
                if (((i + (i.outer * 4)) >= 0) && ((i + (i.outer * 4)) < 9)) {
                  for j in [0, 4) {
                    if (((j + (j.outer * 4)) >= 0) && ((j + (j.outer * 4)) < 6)) {
                      BX[(i + (i.outer * 4)), (j + (j.outer * 4))] = (A[(i + (i.outer * 4)), (j + (j.outer * 4))] + A[(i + (i.outer * 4)), ((j + (j.outer * 4)) + 2)])
                    }
                  }
                }
              }
              for i.inner in [0, 4) {
                if (((i.outer * 4) + i.inner) < 7) {
                  for j.inner in [0, 4) {
                    if (((j.outer * 4) + j.inner) < 6) {
                      BY[((i.outer * 4) + i.inner), ((j.outer * 4) + j.inner)] = (BX[((i.outer * 4) + i.inner), ((j.outer * 4) + j.inner)] + BX[(((i.outer * 4) + i.inner) + 2), ((j.outer * 4) + j.inner)])
                    }
                  }
                }
              }
            }
          }
        }
        """);
    // 6 x 4 = 24 elements; BX[r, c] is at (r - 4 i.outer) * 4 + (c - 4 j.outer); A is 9 x 8.
    checkPass(
        d,
        "storage_flatten",
        """
        for i.outer in [0, 2) {
          for j.outer in [0, 2) {
            allocate BX: float32[24] global
            for i in [0, 6) {
              if (((i + (i.outer * 4)) >= 0) && ((i + (i.outer * 4)) < 9)) {
                for j in [0, 4) {
                  if (((j + (j.outer * 4)) >= 0) && ((j + (j.outer * 4)) < 6)) {
                    BX[((i * 4) + j)] = (A[((((i * 8) + (i.outer * 32)) + j) + (j.outer * 4))] + A[(((((i * 8) + (i.outer * 32)) + j) + (j.outer * 4)) + 2)])
                  }
                }
              }
            }
            for i.inner in [0, 4) {
              if (((i.outer * 4) + i.inner) < 7) {
                for j.inner in [0, 4) {
                  if (((j.outer * 4) + j.inner) < 6) {
                    BY[((((i.outer * 24) + (i.inner * 6)) + (j.outer * 4)) + j.inner)] = (BX[((i.inner * 4) + j.inner)] + BX[(((i.inner * 4) + j.inner) + 8)])
                  }
                }
              }
            }
          }
        }
        """);
  }

  @Test
  void storageFlattenOfARootProducerAllocatesItAll() {
    Tensor a = placeholder("A", FLOAT32, 2, 3);
    Tensor b = compute("B", shape(2, 3), (i, j) -> a.at(i, j).mul(2.0f));
    Tensor c = compute("C", shape(3, 2), (i, j) -> b.at(j, i));
    Schedule s = Schedule.create(c);
    checkPass(
        dumps(s, Target.C),
        "storage_flatten",
        """
        allocate B: float32[6] global
        for i in [0, 2) {
          for j in [0, 3) {
            B[((i * 3) + j)] = (A[((i * 3) + j)] * 2.0f)
          }
        }
        for i in [0, 3) {
          for j in [0, 2) {
            C[((i * 2) + j)] = B[((j * 3) + i)]
          }
        }
        """);
  }

  // ---- unroll_loops ----

  @Test
  void unrollCopiesTheBodyWithFreshInnerVariablesAndBuffers() {
    Tensor a = placeholder("A", FLOAT32, 6, 5);
    Tensor b = compute("B", shape(6, 5), (i, j) -> a.at(i, j).mul(2.0f));
    Tensor c = compute("C", shape(6, 4), (i, j) -> b.at(i, j).add(b.at(i, j.add(1))));
    Schedule s = Schedule.create(c);
    Stage sc = s.stage(c);
    Stage.Split sp = sc.split(sc.axis(0), 2);
    sc.unroll(sp.inner());
    s.stage(b).setScope("local");
    s.stage(b).computeAt(sc, sp.inner());
    Map<String, String> d = dumps(s, Target.C);
    checkPass(
        d,
        "storage_flatten",
        """
        for i.outer in [0, 3) {
          unrolled i.inner in [0, 2) {
            allocate B: float32[5] local
            for i in [0, 1) {
              if ((((i + (i.outer * 2)) + i.inner) >= 0) && (((i + (i.outer * 2)) + i.inner) < 6)) {
                for j in [0, 5) {
                  B[((i * 5) + j)] = (A[((((i * 5) + (i.outer * 10)) + (i.inner * 5)) + j)] * 2.0f)
                }
              }
            }
            for j in [0, 4) {
              C[(((i.outer * 8) + (i.inner * 4)) + j)] = (B[j] + B[(j + 1)])
            }
          }
        }
        """);
    checkPass(
        d,
        "unroll_loops",
        """
        for i.outer in [0, 3) {
          allocate B: float32[5] local
          for i in [0, 1) {
            if ((((i + (i.outer * 2)) + 0) >= 0) && (((i + (i.outer * 2)) + 0) < 6)) {
              for j in [0, 5) {
                B[((i * 5) + j)] = (A[((((i * 5) + (i.outer * 10)) + (0 * 5)) + j)] * 2.0f)
              }
            }
          }
          for j in [0, 4) {
            C[(((i.outer * 8) + (0 * 4)) + j)] = (B[j] + B[(j + 1)])
          }
          allocate B: float32[5] local
          for i in [0, 1) {
            if ((((i + (i.outer * 2)) + 1) >= 0) && (((i + (i.outer * 2)) + 1) < 6)) {
              for j in [0, 5) {
                B[((i * 5) + j)] = (A[((((i * 5) + (i.outer * 10)) + (1 * 5)) + j)] * 2.0f)
              }
            }
          }
          for j in [0, 4) {
            C[(((i.outer * 8) + (1 * 4)) + j)] = (B[j] + B[(j + 1)])
          }
        }
        """);
  }

  @Test
  void unrollRenamesEveryDefinitionInEachCopy() {
    // for u in [0, 3) unrolled { allocate T[2]; for x in [0, 2) { T[x] = A[u]; }; let y = u;
    // Out[u] = T[0] + T[1] }: each copy must define its own x, T and y.
    Buffer a = new Buffer("A", FLOAT32, MemoryScope.GLOBAL, List.of(IntImm.of(3)));
    Buffer out = new Buffer("Out", FLOAT32, MemoryScope.GLOBAL, List.of(IntImm.of(3)));
    Buffer t = new Buffer("T", FLOAT32, MemoryScope.LOCAL, List.of());
    Var u = new Var("u", INT32);
    Var x = new Var("x", INT32);
    Var y = new Var("y", INT32);
    Stmt body =
        new Allocate(
            t,
            IntImm.of(2),
            Seq.of(
                For.serial(x, IntImm.of(0), IntImm.of(2), new Store(t, x, Load.of(a, u))),
                new LetStmt(
                    y,
                    u,
                    new Store(out, y, Load.of(t, IntImm.of(0)).add(Load.of(t, IntImm.of(1)))))));
    Stmt input = new For(u, IntImm.of(0), IntImm.of(3), ForKind.UNROLLED, null, List.of(), body);
    Stmt output = UnrollLoops.run(input);
    checkPass(
        "unroll_loops",
        input,
        output,
        """
        allocate T: float32[2] local
        for x in [0, 2) {
          T[x] = A[0]
        }
        let y = 0
        Out[y] = (T[0] + T[1])
        allocate T: float32[2] local
        for x in [0, 2) {
          T[x] = A[1]
        }
        let y = 1
        Out[y] = (T[0] + T[1])
        allocate T: float32[2] local
        for x in [0, 2) {
          T[x] = A[2]
        }
        let y = 2
        Out[y] = (T[0] + T[1])
        """);
    // The printed names repeat; the definitions must not.
    Set<Object> defined = Collections.newSetFromMap(new IdentityHashMap<>());
    List<Object> all = new ArrayList<>();
    Set<Buffer> storedTo = Collections.newSetFromMap(new IdentityHashMap<>());
    Set<Buffer> loadedFrom = Collections.newSetFromMap(new IdentityHashMap<>());
    new StmtVisitor() {
      @Override
      public void visit(Stmt s) {
        switch (s) {
          case For f -> all.add(f.loopVar());
          case LetStmt l -> all.add(l.var());
          case Allocate al -> all.add(al.buffer());
          case Store st -> {
            if (st.buffer().scope() == MemoryScope.LOCAL) {
              storedTo.add(st.buffer());
            }
          }
          default -> {}
        }
        super.visit(s);
      }

      @Override
      public void visit(Expr e) {
        if (e instanceof Load l && l.buffer().scope() == MemoryScope.LOCAL) {
          loadedFrom.add(l.buffer());
        }
        super.visit(e);
      }
    }.visit(output);
    defined.addAll(all);
    assertThat(all).hasSize(9);
    assertThat(defined).hasSize(9).doesNotContain(x, y, t);
    // Each copy's stores and loads use that copy's buffer.
    assertThat(storedTo).hasSize(3).isEqualTo(loadedFrom);
  }

  @Test
  void unrollLeavesLongAndSymbolicLoopsAsAnnotatedLoops() {
    Buffer out = new Buffer("Out", FLOAT32, MemoryScope.GLOBAL, List.of(IntImm.of(100)));
    Var x = new Var("x", INT32);
    Var n = new Var("n", INT32);
    Stmt store = new Store(out, x, FloatImm.f32(1));
    Stmt longLoop =
        new For(x, IntImm.of(0), IntImm.of(100), ForKind.UNROLLED, null, List.of(), store);
    Stmt symbolic = new For(x, IntImm.of(0), n, ForKind.UNROLLED, null, List.of(), store);
    assertThat(UnrollLoops.run(longLoop)).isSameAs(longLoop);
    assertThat(UnrollLoops.run(symbolic)).isSameAs(symbolic);
    Stmt limit =
        new For(
            x,
            IntImm.of(0),
            IntImm.of(UnrollLoops.MAX_EXTENT),
            ForKind.UNROLLED,
            null,
            List.of(),
            store);
    assertThat(UnrollLoops.run(limit)).isInstanceOf(Seq.class);
  }

  // ---- inject_virtual_thread ----

  @Test
  void virtualThreadsOfConstantExtentBecomeUnrolledLoops() {
    Tensor a = placeholder("A", FLOAT32, 8);
    Tensor b = compute("B", shape(8), i -> a.at(i).add(1.0f));
    Schedule s = Schedule.create(b);
    Stage sb = s.stage(b);
    Stage.Split sp = sb.split(sb.axis(0), 4);
    Stage.Split v = sb.splitNparts(sp.inner(), 2);
    sb.bind(sp.outer(), ThreadTag.BLOCK_X);
    sb.bind(v.outer(), ThreadTag.VTHREAD);
    sb.bind(v.inner(), ThreadTag.THREAD_X);
    Map<String, String> d = dumps(s, Target.CUDA);
    checkPass(
        d,
        "inject_virtual_thread",
        """
        launch blockIdx.x i.outer in [0, 2) {
          unrolled i.inner.outer in [0, 2) {
            launch threadIdx.x i.inner.inner in [0, 2) {
              B[(((i.outer * 4) + (i.inner.outer * 2)) + i.inner.inner)] = (A[(((i.outer * 4) + (i.inner.outer * 2)) + i.inner.inner)] + 1.0f)
            }
          }
        }
        """);
    checkPass(
        d,
        "unroll_loops",
        """
        launch blockIdx.x i.outer in [0, 2) {
          launch threadIdx.x i.inner.inner in [0, 2) {
            B[(((i.outer * 4) + (0 * 2)) + i.inner.inner)] = (A[(((i.outer * 4) + (0 * 2)) + i.inner.inner)] + 1.0f)
          }
          launch threadIdx.x i.inner.inner in [0, 2) {
            B[(((i.outer * 4) + (1 * 2)) + i.inner.inner)] = (A[(((i.outer * 4) + (1 * 2)) + i.inner.inner)] + 1.0f)
          }
        }
        """);
  }

  @Test
  void virtualThreadsOfSymbolicExtentBecomeSerialLoops() {
    Buffer out = new Buffer("Out", FLOAT32, MemoryScope.GLOBAL, List.of());
    Var v = new Var("v", INT32);
    Var n = new Var("n", INT32);
    Stmt input =
        new For(
            v,
            IntImm.of(0),
            n,
            ForKind.VTHREAD,
            ThreadTag.VTHREAD,
            List.of(),
            new Store(out, v, FloatImm.f32(1)));
    checkPass(
        "inject_virtual_thread",
        input,
        InjectVirtualThread.run(input),
        """
        for v in [0, n) {
          Out[v] = 1.0f
        }
        """);
  }

  // ---- insert_barriers ----

  @Test
  void sharedTileOfAGpuMatmulGetsABarrierAfterTheFillAndAtTheEndOfTheLoop() {
    Tensor a = placeholder("A", FLOAT32, 8, 8);
    Tensor b = placeholder("B", FLOAT32, 8, 8);
    IterVar k = reduceAxis(8, "k");
    Tensor c = compute("C", shape(8, 8), (i, j) -> sum(a.at(i, k.var()).mul(b.at(k.var(), j)), k));
    Schedule s = Schedule.create(c);
    Tensor as = s.cacheRead(a, "shared", c);
    Stage sc = s.stage(c);
    Stage.Tile t = sc.tile(sc.axis(0), sc.axis(1), 4, 4);
    Stage.Split ks = sc.split(k, 4);
    sc.reorder(t.xOuter(), t.yOuter(), ks.outer(), t.xInner(), t.yInner(), ks.inner());
    sc.bind(t.xOuter(), ThreadTag.BLOCK_Y);
    sc.bind(t.yOuter(), ThreadTag.BLOCK_X);
    sc.bind(t.xInner(), ThreadTag.THREAD_Y);
    sc.bind(t.yInner(), ThreadTag.THREAD_X);
    Stage sa = s.stage(as);
    sa.computeAt(sc, ks.outer());
    sa.bind(sa.axis(0), ThreadTag.THREAD_Y);
    sa.bind(sa.axis(1), ThreadTag.THREAD_X);
    // Read after write within an iteration of k.outer; write after read across iterations.
    checkPass(
        dumps(s, Target.CUDA),
        "insert_barriers",
        """
        launch blockIdx.y i.outer in [0, 2) {
          launch blockIdx.x j.outer in [0, 2) {
            launch threadIdx.y i.inner in [0, 4) {
              launch threadIdx.x j.inner in [0, 4) {
                C[((((i.outer * 32) + (i.inner * 8)) + (j.outer * 4)) + j.inner)] = 0.0f
              }
            }
            for k.outer in [0, 2) {
              allocate A.shared: float32[16] shared
              launch threadIdx.y i in [0, 4) {
                launch threadIdx.x j in [0, 4) {
                  A.shared[((i * 4) + j)] = A[((((i * 8) + (i.outer * 32)) + j) + (k.outer * 4))]
                }
              }
              barrier(shared)
              launch threadIdx.y i.inner in [0, 4) {
                launch threadIdx.x j.inner in [0, 4) {
                  for k.inner in [0, 4) {
                    C[((((i.outer * 32) + (i.inner * 8)) + (j.outer * 4)) + j.inner)] = (C[((((i.outer * 32) + (i.inner * 8)) + (j.outer * 4)) + j.inner)] + (A.shared[((i.inner * 4) + k.inner)] * B[((((k.outer * 32) + (k.inner * 8)) + (j.outer * 4)) + j.inner)]))
                  }
                }
              }
              barrier(shared)
            }
          }
        }
        """);
  }

  @Test
  void insertBarriersIsOnlyForGpuTargets() {
    Tensor a = placeholder("A", FLOAT32, 8);
    Tensor b = compute("B", shape(8), i -> a.at(i).add(1.0f));
    Schedule s = Schedule.create(b);
    assertThat(dumps(s, Target.C)).doesNotContainKey("insert_barriers");
  }

  /** {@code launch threadIdx.x tx in [0, 4) { stmts }}. */
  private static Stmt threads(Var tx, Stmt... stmts) {
    return new For(
        tx,
        IntImm.of(0),
        IntImm.of(4),
        ForKind.THREAD_BINDING,
        "threadIdx.x",
        List.of(),
        Seq.of(stmts));
  }

  private final Var tx = new Var("tx", INT32);
  private final Buffer gA = new Buffer("A", FLOAT32, MemoryScope.GLOBAL, List.of(IntImm.of(4)));
  private final Buffer gB = new Buffer("B", FLOAT32, MemoryScope.GLOBAL, List.of(IntImm.of(4)));
  private final Buffer gC = new Buffer("C", FLOAT32, MemoryScope.GLOBAL, List.of(IntImm.of(4)));

  @Test
  void sharedWriteThenTwoReadsGetsOneBarrier() {
    Buffer sh = new Buffer("S", FLOAT32, MemoryScope.SHARED, List.of());
    Stmt input =
        threads(
            tx,
            new Store(sh, tx, Load.of(gA, tx)),
            new Store(gB, tx, Load.of(sh, IntImm.of(3).sub(tx))),
            new Store(gC, tx, Load.of(sh, tx).mul(2.0f)));
    checkPass(
        "insert_barriers",
        input,
        InsertBarriers.run(input),
        """
        launch threadIdx.x tx in [0, 4) {
          S[tx] = A[tx]
          barrier(shared)
          B[tx] = S[(3 - tx)]
          C[tx] = (S[tx] * 2.0f)
        }
        """);
  }

  @Test
  void localBuffersGetNoBarrier() {
    Buffer loc = new Buffer("L", FLOAT32, MemoryScope.LOCAL, List.of());
    Stmt input =
        threads(
            tx,
            new Allocate(
                loc,
                IntImm.of(1),
                Seq.of(
                    new Store(loc, IntImm.of(0), Load.of(gA, tx)),
                    new Store(gB, tx, Load.of(loc, IntImm.of(0))),
                    new Store(loc, IntImm.of(0), Load.of(gB, tx)))));
    assertThat(InsertBarriers.run(input)).isSameAs(input);
  }

  @Test
  void writeAfterReadOfSharedMemoryGetsABarrier() {
    Buffer sh = new Buffer("S", FLOAT32, MemoryScope.SHARED, List.of());
    Stmt input =
        threads(
            tx,
            new Store(gB, tx, Load.of(sh, IntImm.of(3).sub(tx))),
            new Store(sh, tx, Load.of(gA, tx)));
    checkPass(
        "insert_barriers",
        input,
        InsertBarriers.run(input),
        """
        launch threadIdx.x tx in [0, 4) {
          B[tx] = S[(3 - tx)]
          barrier(shared)
          S[tx] = A[tx]
        }
        """);
  }

  @Test
  void loopCarriedReuseOfASharedBufferGetsABarrierAtTheEndOfTheLoop() {
    // for r in [0, 3) { S[tx] = A[tx] + r; C[tx] = C[tx] + S[3 - tx] }: the next iteration's
    // write of S must wait until every thread has read this one's.
    Buffer sh = new Buffer("S", FLOAT32, MemoryScope.SHARED, List.of());
    Var r = new Var("r", INT32);
    Stmt loop =
        For.serial(
            r,
            IntImm.of(0),
            IntImm.of(3),
            Seq.of(
                new Store(sh, tx, Load.of(gA, tx).add(cast(FLOAT32, r))),
                new Store(gC, tx, Load.of(gC, tx).add(Load.of(sh, IntImm.of(3).sub(tx))))));
    Stmt input = threads(tx, loop);
    checkPass(
        "insert_barriers",
        input,
        InsertBarriers.run(input),
        """
        launch threadIdx.x tx in [0, 4) {
          for r in [0, 3) {
            S[tx] = (A[tx] + float32(r))
            barrier(shared)
            C[tx] = (C[tx] + S[(3 - tx)])
            barrier(shared)
          }
        }
        """);
  }

  @Test
  void aLoopThatOnlyReadsSharedMemoryGetsNoBarrier() {
    Buffer sh = new Buffer("S", FLOAT32, MemoryScope.SHARED, List.of());
    Var r = new Var("r", INT32);
    Stmt input =
        threads(
            tx,
            For.serial(
                r,
                IntImm.of(0),
                IntImm.of(4),
                new Store(gC, tx, Load.of(gC, tx).add(Load.of(sh, r)))));
    assertThat(InsertBarriers.run(input)).isSameAs(input);
  }
}
