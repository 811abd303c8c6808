/**
 * The operator library: common operators written in the tensor-expression DSL, and their schedules:
 * the defaults an operator gets for a target its spec does not schedule ({@link
 * dev.kernelgen.topi.DefaultSchedules}), per-operator schedules with knobs, and the tuned CPU
 * depthwise space ({@link dev.kernelgen.topi.DepthwiseCpuSpace}).
 */
package dev.kernelgen.topi;
