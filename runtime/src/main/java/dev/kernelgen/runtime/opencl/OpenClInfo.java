package dev.kernelgen.runtime.opencl;

import java.nio.charset.StandardCharsets;
import org.jocl.CL;
import org.jocl.Pointer;
import org.jocl.Sizeof;
import org.jocl.cl_device_id;
import org.jocl.cl_platform_id;

/** Queries of OpenCL platforms and devices, for the probe and the device's description. */
final class OpenClInfo {
  private OpenClInfo() {}

  static String deviceString(cl_device_id d, int param) {
    long[] size = new long[1];
    CL.clGetDeviceInfo(d, param, 0, null, size);
    byte[] bytes = new byte[(int) size[0]];
    CL.clGetDeviceInfo(d, param, bytes.length, Pointer.to(bytes), null);
    return cString(bytes);
  }

  static String platformString(cl_platform_id p, int param) {
    long[] size = new long[1];
    CL.clGetPlatformInfo(p, param, 0, null, size);
    byte[] bytes = new byte[(int) size[0]];
    CL.clGetPlatformInfo(p, param, bytes.length, Pointer.to(bytes), null);
    return cString(bytes);
  }

  static long deviceLong(cl_device_id d, int param) {
    long[] v = new long[1];
    CL.clGetDeviceInfo(d, param, Sizeof.cl_long, Pointer.to(v), null);
    return v[0];
  }

  static long deviceInt(cl_device_id d, int param) {
    int[] v = new int[1];
    CL.clGetDeviceInfo(d, param, Sizeof.cl_uint, Pointer.to(v), null);
    return v[0];
  }

  static String cString(byte[] bytes) {
    int n = 0;
    while (n < bytes.length && bytes[n] != 0) {
      n++;
    }
    return new String(bytes, 0, n, StandardCharsets.UTF_8);
  }
}
