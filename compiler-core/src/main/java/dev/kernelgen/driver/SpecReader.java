package dev.kernelgen.driver;

import dev.kernelgen.annotations.KernelLibrary;
import dev.kernelgen.annotations.Operator;
import dev.kernelgen.annotations.ScheduleFor;
import dev.kernelgen.annotations.Target;
import dev.kernelgen.diag.UserError;
import dev.kernelgen.schedule.Schedule;
import dev.kernelgen.spec.Knobs;
import dev.kernelgen.spec.OperatorDef;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.EnumMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * Reads a spec class's annotations into a {@link LibrarySpec}, checking the signatures of its
 * methods, and calls those methods with errors that name the spec file, class and method.
 */
final class SpecReader {
  private SpecReader() {}

  /** A {@code @KernelLibrary} class. */
  record LibrarySpec(
      String name,
      GenerateRequest.SpecSource source,
      List<Target> targets,
      List<OperatorSpec> operators) {}

  /** An {@code @Operator} method with its specializations and schedules per target. */
  record OperatorSpec(
      String name,
      Method method,
      List<String> specializations,
      Map<Target, Method> schedules,
      GenerateRequest.SpecSource source) {}

  static LibrarySpec read(GenerateRequest.SpecSource src) {
    Class<?> c = src.type();
    String where = src.displayName() + ": " + c.getName();
    KernelLibrary lib = c.getAnnotation(KernelLibrary.class);
    UserError.check(lib != null, "%s is not annotated @KernelLibrary", where);
    String name = lib.name().isEmpty() ? c.getSimpleName() + "Kernels" : lib.name();
    // Every mistake of the class at once, each naming its method: a user fixing them one build at
    // a time went through a build per mistake.
    List<String> mistakes = new ArrayList<>();
    mistake(
        mistakes,
        () ->
            UserError.check(
                name.matches("[A-Z][A-Za-z0-9_]*"),
                "%s: library name '%s' must be a Java class name starting with an upper-case letter",
                where,
                name));
    mistake(
        mistakes,
        () ->
            UserError.check(
                !name.equals(c.getSimpleName()),
                "%s: library name '%s' is the spec class's own name; the launcher class needs"
                    + " another",
                where,
                name));
    UserError.check(lib.targets().length > 0, "%s: @KernelLibrary lists no targets", where);
    List<Target> targets = Arrays.stream(lib.targets()).distinct().sorted().toList();

    Method[] methods = c.getDeclaredMethods();
    // Reflection gives methods in no particular order: sort for deterministic output.
    Arrays.sort(methods, Comparator.comparing(Method::getName));
    Map<String, Method> ops = new TreeMap<>();
    Map<String, List<String>> specs = new LinkedHashMap<>();
    java.util.Set<String> broken = new java.util.HashSet<>(); // operators with a mistake
    for (Method m : methods) {
      Operator op = m.getAnnotation(Operator.class);
      if (op == null) {
        continue;
      }
      String opName = op.name().isEmpty() ? m.getName() : op.name();
      if (!mistake(mistakes, () -> checkOperator(src, m, opName, ops))) {
        broken.add(opName);
        continue;
      }
      specs.put(opName, List.of(op.specialize()));
    }
    if (broken.isEmpty()) {
      mistake(
          mistakes,
          () -> UserError.check(!ops.isEmpty(), "%s declares no @Operator method", where));
    }

    Map<String, Map<Target, Method>> schedules = new TreeMap<>();
    for (Method m : methods) {
      ScheduleFor s = m.getAnnotation(ScheduleFor.class);
      if (s == null || broken.contains(s.operator())) {
        continue;
      }
      mistake(mistakes, () -> checkSchedule(src, m, s, name, targets, ops, schedules));
    }
    if (mistakes.size() == 1) {
      throw new UserError(mistakes.get(0));
    }
    if (!mistakes.isEmpty()) {
      throw new UserError(
          mistakes.size() + " mistakes in " + where + ":\n  " + String.join("\n  ", mistakes));
    }
    List<OperatorSpec> out = new ArrayList<>();
    for (var e : ops.entrySet()) {
      out.add(
          new OperatorSpec(
              e.getKey(),
              e.getValue(),
              specs.get(e.getKey()),
              schedules.getOrDefault(e.getKey(), Map.of()),
              src));
    }
    return new LibrarySpec(name, src, targets, out);
  }

  /** Runs {@code check}; a user error it throws joins {@code mistakes}. Whether it passed. */
  private static boolean mistake(List<String> mistakes, Runnable check) {
    try {
      check.run();
      return true;
    } catch (UserError e) {
      mistakes.add(e.getMessage());
      return false;
    }
  }

  /** Checks an {@code @Operator} method's signature and name, and records it in {@code ops}. */
  private static void checkOperator(
      GenerateRequest.SpecSource src, Method m, String opName, Map<String, Method> ops) {
    String w = where(src, m);
    UserError.check(Modifier.isStatic(m.getModifiers()), "%s: an @Operator must be static", w);
    UserError.check(m.getParameterCount() == 0, "%s: an @Operator method takes no parameters", w);
    UserError.check(
        m.getReturnType() == OperatorDef.class,
        "%s: an @Operator method must return OperatorDef, not %s",
        w,
        m.getReturnType().getSimpleName());
    UserError.check(
        opName.matches("[a-z][A-Za-z0-9]*"),
        "%s: operator name '%s' must be a Java method name in lower camel case",
        w,
        opName);
    Method first = ops.putIfAbsent(opName, m);
    UserError.check(
        first == null,
        "%s: operator '%s' is declared twice, here and by %s()",
        w,
        opName,
        first == null ? "" : first.getName());
  }

  /** Checks a {@code @ScheduleFor} method and records it in {@code schedules}. */
  private static void checkSchedule(
      GenerateRequest.SpecSource src,
      Method m,
      ScheduleFor s,
      String name,
      List<Target> targets,
      Map<String, Method> ops,
      Map<String, Map<Target, Method>> schedules) {
    String w = where(src, m);
    UserError.check(Modifier.isStatic(m.getModifiers()), "%s: a @ScheduleFor must be static", w);
    checkScheduleSignature(w, m);
    UserError.check(
        ops.containsKey(s.operator()),
        "%s: schedules operator '%s', which is not declared (operators: %s)",
        w,
        s.operator(),
        ops.keySet());
    UserError.check(s.targets().length > 0, "%s: @ScheduleFor lists no targets", w);
    Map<Target, Method> byTarget =
        schedules.computeIfAbsent(s.operator(), k -> new EnumMap<>(Target.class));
    for (Target t : s.targets()) {
      UserError.check(
          targets.contains(t),
          "%s: schedules operator '%s' for %s, which library '%s' does not build (targets: %s);"
              + " add %s to @KernelLibrary's targets or drop it from this @ScheduleFor",
          w,
          s.operator(),
          t,
          name,
          targets,
          t);
      Method before = byTarget.putIfAbsent(t, m);
      UserError.check(
          before == null,
          "%s: operator '%s' already has a schedule for %s: %s",
          w,
          s.operator(),
          t,
          before == null ? "" : before.getName());
    }
  }

  private static void checkScheduleSignature(String w, Method m) {
    Class<?>[] p = m.getParameterTypes();
    boolean applies =
        m.getReturnType() == void.class
            && p.length == 3
            && p[0] == Schedule.class
            && p[1] == OperatorDef.class
            && p[2] == Knobs.class;
    boolean returns =
        m.getReturnType() == Schedule.class
            && p.length == 2
            && p[0] == OperatorDef.class
            && p[1] == Knobs.class;
    UserError.check(
        applies || returns,
        "%s: a @ScheduleFor method must be either 'void (Schedule s, OperatorDef op, Knobs knobs)'"
            + " or 'Schedule (OperatorDef op, Knobs knobs)'",
        w);
  }

  /** {@code File.java: pkg.Class.method()} for messages. */
  static String where(GenerateRequest.SpecSource src, Method m) {
    return src.displayName() + ": " + src.type().getName() + "." + m.getName() + "()";
  }

  /**
   * Calls a static spec method. What it throws becomes a user error naming the method; a {@link
   * UserError} keeps its message, anything else is quoted with the line of the spec it came from.
   */
  static Object call(GenerateRequest.SpecSource src, Method m, Object... args) {
    String w = where(src, m);
    // On a thread of its own, so that a method that never returns (a loop whose bound the user got
    // wrong) is an error naming it instead of a build that hangs without a word.
    ClassLoader loader = Thread.currentThread().getContextClassLoader();
    java.util.concurrent.Future<Object> f =
        CALLS.submit(
            () -> {
              Thread.currentThread().setContextClassLoader(loader);
              m.setAccessible(true);
              return m.invoke(null, args);
            });
    long seconds = Long.getLong(TIMEOUT_PROPERTY, DEFAULT_TIMEOUT_SECONDS);
    try {
      return f.get(seconds, java.util.concurrent.TimeUnit.SECONDS);
    } catch (java.util.concurrent.TimeoutException e) {
      f.cancel(true);
      throw new UserError(
          w
              + " did not return within "
              + seconds
              + " s: does a loop in it never end? (the limit is -D"
              + TIMEOUT_PROPERTY
              + "=SECONDS)");
    } catch (InterruptedException e) {
      f.cancel(true);
      Thread.currentThread().interrupt();
      throw new UserError(w + ": interrupted while it ran", e);
    } catch (java.util.concurrent.ExecutionException e) {
      Throwable c = e.getCause() instanceof InvocationTargetException t ? t.getCause() : null;
      if (c instanceof UserError u) {
        throw new UserError(w + ": " + u.getMessage(), u);
      }
      if (c != null) {
        throw new UserError(w + " threw " + c + line(src.type(), c), c);
      }
      throw new UserError(w + ": cannot call it: " + e.getCause(), e.getCause());
    }
  }

  /** The system property that sets how long a spec method may run, in seconds. */
  static final String TIMEOUT_PROPERTY = "kernelgen.specTimeoutSeconds";

  /**
   * How long a spec method may run by default: building an operator's tensor expression or schedule
   * takes milliseconds; a minute leaves room for a slow machine and a large unrolled spec.
   */
  static final long DEFAULT_TIMEOUT_SECONDS = 60;

  /** The threads spec methods run on: daemons, so that one that never returns keeps no JVM up. */
  private static final java.util.concurrent.ExecutorService CALLS =
      java.util.concurrent.Executors.newCachedThreadPool(
          r -> {
            Thread t = new Thread(r, "kernelgen-spec-method");
            t.setDaemon(true);
            return t;
          });

  /** " (at Spec.java:12)" for the innermost frame in the spec class, else "". */
  private static String line(Class<?> spec, Throwable t) {
    for (StackTraceElement f : t.getStackTrace()) {
      if (f.getClassName().equals(spec.getName())
          || f.getClassName().startsWith(spec.getName() + "$")) {
        return " (at " + f.getFileName() + ":" + f.getLineNumber() + ")";
      }
    }
    return "";
  }
}
