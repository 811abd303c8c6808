/**
 * Small helpers that generated launcher classes call: choosing a device, reading embedded kernels
 * from the class path, checking argument shapes, and {@link
 * dev.kernelgen.runtime.launch.DeviceTensor}, a shaped buffer in device memory. Kept here, not in
 * the generated code, so that launchers stay short and their messages uniform. A launcher keeps a
 * {@link dev.kernelgen.runtime.launch.Workspace} for its kernels' temporaries, so that a call
 * allocates nothing once the dims have been seen.
 */
package dev.kernelgen.runtime.launch;
