package dev.kernelgen.runtime;

/**
 * A device refused something: a driver call failed, a kernel did not build or load, a launch was
 * rejected. The message names the device, the kernel where there is one, and the driver's error by
 * name ({@code CUDA_ERROR_INVALID_PTX}, {@code CL_BUILD_PROGRAM_FAILURE}) with any log it gave.
 */
public final class DeviceException extends RuntimeException {
  public DeviceException(String message) {
    super(message);
  }

  public DeviceException(String message, Throwable cause) {
    super(message, cause);
  }
}
