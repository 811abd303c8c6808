/**
 * What a user's spec classes are written with, beside the tensor-expression DSL ({@link
 * dev.kernelgen.te.TE}) and the annotations of {@code dev.kernelgen.annotations}.
 *
 * <p>An {@code @Operator} method returns an {@link dev.kernelgen.spec.OperatorDef}: its input
 * placeholders and output tensors, in the order of the generated launcher method's parameters. A
 * {@code @ScheduleFor} method schedules one operator for some targets and reads its tunable choices
 * from {@link dev.kernelgen.spec.Knobs}; where there is none, {@link
 * dev.kernelgen.topi.DefaultSchedules} applies.
 */
package dev.kernelgen.spec;
