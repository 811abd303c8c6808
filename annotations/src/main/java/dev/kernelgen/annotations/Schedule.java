package dev.kernelgen.annotations;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;

/** Marks a static method that schedules an operator for the given targets. */
@Documented
@Retention(RetentionPolicy.RUNTIME)
@java.lang.annotation.Target(ElementType.METHOD)
public @interface Schedule {
  /** The operator this schedule is for (its name). */
  String operator();

  /** The targets this schedule applies to. */
  Target[] targets();
}
