package dev.kernelgen.measure;

import dev.kernelgen.annotations.Target;

/**
 * Measures built candidates on one device: loads a {@link RunnerInput}'s binary, runs it once and
 * checks its outputs against the oracle's, then times it under the input's {@link TimingProtocol}.
 * A candidate's fault (a crash, a hang past the input's timeout, a driver error, a wrong output) is
 * a failed {@link RunResult}, never an exception, and the next candidate still measures.
 *
 * <p>One runner per device kind: {@link CHarnessRunner} (C, a child process per candidate), {@link
 * DeviceRunner} (CUDA, OpenCL and Java through the runtime, in this JVM behind a timeout) and
 * {@link ChildJvmRunner} (the same in a child JVM per candidate, so that a crash of the driver or a
 * hang is the child's). A runner measures one candidate at a time; a {@link RunnerQueue} gives it a
 * queue of its own, so that runners of different devices measure at the same time.
 */
public interface Runner extends AutoCloseable {
  /** The kind of kernels this runner runs. */
  Target target();

  /** The device's name, as tuning records carry it. */
  String deviceName();

  /** The measurement of one built candidate ({@code input.build().ok()}). */
  RunResult run(RunnerInput input);

  @Override
  default void close() {}
}
