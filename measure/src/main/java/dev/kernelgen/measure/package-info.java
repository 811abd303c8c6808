/**
 * The one compile-and-measure path: a candidate schedule is lowered, printed, compiled and run on a
 * device, checked against the tensor-expression oracle and timed. No other main code compiles
 * candidates or times kernels ({@code NoOtherMeasurementPathTest}).
 *
 * <h2>Design: builder, runners, serializable records</h2>
 *
 * <ul>
 *   <li>{@link dev.kernelgen.measure.Builder} turns a task's configurations into {@link
 *       dev.kernelgen.measure.BuildResult}s (schedule, lowered module, source, binary, kernel
 *       names, parameter signature, launch geometry, or the build error) in parallel on a fixed
 *       pool sized to the cores. It loads and runs nothing. A source it compiled before
 *       (configurations that print the same kernel) is not compiled again ({@code
 *       CompiledBinaries}).
 *   <li>A {@link dev.kernelgen.measure.Runner} per device kind takes a {@link
 *       dev.kernelgen.measure.RunnerInput} (the build, the task's {@link
 *       dev.kernelgen.measure.ReferenceData} directory, the {@link
 *       dev.kernelgen.measure.TimingProtocol}, tolerance, timeout) and gives a {@link
 *       dev.kernelgen.measure.RunResult}: {@link dev.kernelgen.measure.CHarnessRunner} (C, a child
 *       process per candidate), {@link dev.kernelgen.measure.DeviceRunner} (CUDA, OpenCL, Java in
 *       this JVM behind a timeout that abandons the worker thread) and {@link
 *       dev.kernelgen.measure.ChildJvmRunner} (the same in a child JVM per candidate, killed on a
 *       timeout). A crash, a hang, a driver error or a wrong output is a failed result with its
 *       reason, never an exception, and the next candidate measures.
 *   <li>BuildResult, RunnerInput and RunResult are records with {@code toJson}/{@code fromJson}
 *       ({@link dev.kernelgen.json.Json}); every RunResult carries its timing protocol, and the
 *       measurers put it in every record's versions. The runtime module stays free of JSON.
 *   <li>Each runner measures one candidate at a time; a {@link dev.kernelgen.measure.RunnerQueue}
 *       gives a runner a queue of its own, so that runners of different devices (the C harness and
 *       a GPU, issue 13) measure at the same time.
 * </ul>
 *
 * <p>{@link dev.kernelgen.measure.CHarnessMeasurer} and {@link
 * dev.kernelgen.measure.DeviceMeasurer} implement {@link dev.kernelgen.tune.Measurer}, the
 * interface the search in {@code compiler-core}'s {@code tune} package drives, on top of one
 * builder and one runner each. This is a measurement interface, not a distributed engine: an
 * existing engine (a job queue, a cluster scheduler) can drive it across hosts later by shipping
 * the serialized RunnerInput and its data directory to a host that runs {@code RunnerMain} or a
 * {@code CHarnessRunner}, and shipping the RunResult back.
 */
package dev.kernelgen.measure;
