package dev.kernelgen.runtime.opencl;

import static dev.kernelgen.runtime.opencl.OpenClInfo.deviceLong;
import static dev.kernelgen.runtime.opencl.OpenClInfo.deviceString;
import static org.jocl.CL.CL_DEVICE_NAME;
import static org.jocl.CL.CL_DEVICE_TYPE;
import static org.jocl.CL.CL_DEVICE_TYPE_ALL;
import static org.jocl.CL.CL_DEVICE_TYPE_GPU;
import static org.jocl.CL.CL_SUCCESS;

import dev.kernelgen.runtime.DeviceException;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.jocl.CL;
import org.jocl.cl_device_id;
import org.jocl.cl_platform_id;

/**
 * The choice of an OpenCL device among all platforms' (for the probe and {@link
 * OpenClDevice#open}), apart from the probe so that opening a device never runs the process-wide
 * probe.
 */
final class OpenClChoice {
  private OpenClChoice() {}

  /**
   * Opens the device to use: the first whose name contains {@code $KERNELGEN_OPENCL_DEVICE} when
   * that is set, else the first GPU of any platform, else the first device of any type.
   *
   * @return empty with the reason when there is none
   */
  static Result<OpenClDevice> choose(String nameFilter) {
    CL.setExceptionsEnabled(false);
    int[] count = new int[1];
    int r = CL.clGetPlatformIDs(0, null, count);
    if (r != CL_SUCCESS || count[0] == 0) {
      return Result.failure(
          "no OpenCL platform (clGetPlatformIDs: "
              + (r == CL_SUCCESS ? "0 platforms" : CL.stringFor_errorCode(r))
              + "; is an OpenCL ICD installed under /etc/OpenCL/vendors?)");
    }
    cl_platform_id[] platforms = new cl_platform_id[count[0]];
    CL.clGetPlatformIDs(platforms.length, platforms, null);
    List<cl_platform_id> owners = new ArrayList<>();
    List<cl_device_id> devices = new ArrayList<>();
    for (cl_platform_id p : platforms) {
      int[] n = new int[1];
      if (CL.clGetDeviceIDs(p, CL_DEVICE_TYPE_ALL, 0, null, n) != CL_SUCCESS || n[0] == 0) {
        continue;
      }
      cl_device_id[] ds = new cl_device_id[n[0]];
      CL.clGetDeviceIDs(p, CL_DEVICE_TYPE_ALL, n[0], ds, null);
      for (cl_device_id d : ds) {
        owners.add(p);
        devices.add(d);
      }
    }
    if (devices.isEmpty()) {
      return Result.failure(count[0] + " OpenCL platform(s) but no devices");
    }
    int pick = -1;
    if (nameFilter != null && !nameFilter.isBlank()) {
      for (int i = 0; i < devices.size() && pick < 0; i++) {
        if (deviceString(devices.get(i), CL_DEVICE_NAME).contains(nameFilter)) {
          pick = i;
        }
      }
      if (pick < 0) {
        List<String> names =
            devices.stream().map(d -> deviceString(d, CL_DEVICE_NAME).strip()).toList();
        return Result.failure(
            "no OpenCL device name contains "
                + OpenClDevice.DEVICE_ENV
                + "=\""
                + nameFilter
                + "\" (found "
                + names
                + ")");
      }
    }
    for (int i = 0; i < devices.size() && pick < 0; i++) {
      if ((deviceLong(devices.get(i), CL_DEVICE_TYPE) & CL_DEVICE_TYPE_GPU) != 0) {
        pick = i;
      }
    }
    if (pick < 0) {
      pick = 0;
    }
    try {
      return Result.success(new OpenClDevice(owners.get(pick), devices.get(pick)));
    } catch (DeviceException e) {
      return Result.failure(e.getMessage());
    }
  }

  /** A value or the reason there is none; how probes report. */
  record Result<T>(Optional<T> value, String reason) {
    static <T> Result<T> success(T value) {
      return new Result<>(Optional.of(value), "");
    }

    static <T> Result<T> failure(String reason) {
      return new Result<>(Optional.empty(), reason);
    }
  }
}
