package dev.kernelgen.annotations;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;

/**
 * Marks a static method that declares an operator: it builds its inputs with placeholders and
 * returns the output tensors built with the tensor-expression DSL.
 */
@Documented
@Retention(RetentionPolicy.RUNTIME)
@java.lang.annotation.Target(ElementType.METHOD)
public @interface Operator {
  /** Name of the operator (the launcher method); defaults to the method name. */
  String name() default "";

  /**
   * Static shape specializations, each as {@code "dim=value,dim=value"} over the symbolic dims, to
   * compile (and tune) beside the generic kernel.
   */
  String[] specialize() default {};
}
