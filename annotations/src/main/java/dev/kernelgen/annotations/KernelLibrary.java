package dev.kernelgen.annotations;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;

/**
 * Marks a class whose static {@link Operator} methods form one kernel library: one generated
 * launcher class, one set of kernels per target.
 */
@Documented
@Retention(RetentionPolicy.RUNTIME)
@java.lang.annotation.Target(ElementType.TYPE)
public @interface KernelLibrary {
  /** Simple name of the generated launcher class; defaults to the spec class name + "Kernels". */
  String name() default "";

  /** The targets to generate; the build configuration may narrow them. */
  Target[] targets() default {Target.CUDA, Target.OPENCL, Target.C, Target.JAVA};
}
