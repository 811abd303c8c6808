/**
 * What generated launchers call at run time: devices, buffers, kernel loading, launching and
 * timing. A user's application needs only this module, never the compiler.
 *
 * <p>{@link dev.kernelgen.runtime.Devices} probes the machine (CUDA through JCuda's driver API,
 * OpenCL through JOCL, C kernels through the JDK's FFM API, plain Java) and keeps why each probe
 * failed. A {@link dev.kernelgen.runtime.Device} allocates {@link
 * dev.kernelgen.runtime.DeviceBuffer}s, copies to and from {@link
 * dev.kernelgen.runtime.HostTensor}s explicitly, loads a {@link dev.kernelgen.runtime.KernelBinary}
 * as it was embedded in the jar into a {@link dev.kernelgen.runtime.KernelModule}, and launches its
 * {@link dev.kernelgen.runtime.KernelFunction}s.
 *
 * <p>Layout: this package is the API that users and generated launchers call, with {@code .launch}
 * (device choice, tensors on a device, workspaces). Each backend has a package of its own: {@code
 * .cuda} (JCuda), {@code .opencl} (JOCL), {@code .cpu} (C through FFM, the ISA levels and the
 * native-library cache) and {@code .java}; what they share (the copy loop, buffer bookkeeping, the
 * function cache, argument marshalling) is written once in {@code .backend}. Only {@link
 * dev.kernelgen.runtime.Devices} names the backends, each through a probe class that it loads when
 * that target is asked for, so C and Java never load the GPU packages.
 *
 * <p>Threads: every device may be used from several threads. The CUDA device makes its context
 * current on the calling thread before each driver call; the OpenCL device serializes the setting
 * of a kernel's arguments with its enqueue; C and Java kernels are plain calls.
 *
 * <p>Lifecycle: a device, module or buffer used after its {@code close()} throws {@link
 * java.lang.IllegalStateException} naming what was closed, on every backend, before any driver
 * call; closing waits for the launches in flight ({@link dev.kernelgen.runtime.Lifecycle}, a
 * read-write lock per device and module). While a CUDA device captures a graph it is held alone:
 * launches from other threads wait for the capture instead of joining the graph. The devices that
 * {@link dev.kernelgen.runtime.Devices} hands out are shared by the process and stay open.
 */
package dev.kernelgen.runtime;
