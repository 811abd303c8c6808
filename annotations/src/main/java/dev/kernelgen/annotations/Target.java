package dev.kernelgen.annotations;

/** The code generation targets of kernelgen. */
public enum Target {
  /** CUDA C, compiled by nvcc to PTX and cubin, launched through the CUDA driver API. */
  CUDA,
  /** OpenCL C, built by the OpenCL driver at run time from the embedded source. */
  OPENCL,
  /** C, compiled by cc to a shared library and called through the JDK's FFM API. */
  C,
  /** Plain Java: runs anywhere, the embedded default. */
  JAVA
}
