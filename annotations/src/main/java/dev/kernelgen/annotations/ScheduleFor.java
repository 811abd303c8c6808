package dev.kernelgen.annotations;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;

/**
 * Marks a static method that schedules an operator for the given targets. Named apart from the
 * DSL's {@code dev.kernelgen.schedule.Schedule}, which the method takes or returns, so that a spec
 * imports both by their short names.
 */
@Documented
@Retention(RetentionPolicy.RUNTIME)
@java.lang.annotation.Target(ElementType.METHOD)
public @interface ScheduleFor {
  /** The operator this schedule is for (its name). */
  String operator();

  /** The targets this schedule applies to. */
  Target[] targets();
}
