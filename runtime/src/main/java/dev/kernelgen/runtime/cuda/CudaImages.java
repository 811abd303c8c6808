package dev.kernelgen.runtime.cuda;

import dev.kernelgen.runtime.DeviceException;
import dev.kernelgen.runtime.KernelBinary;
import dev.kernelgen.runtime.backend.Sha256;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.charset.StandardCharsets;
import java.util.stream.Collectors;
import jcuda.Pointer;
import jcuda.driver.CUjit_option;
import jcuda.driver.CUmodule;
import jcuda.driver.CUresult;
import jcuda.driver.JCudaDriver;

/**
 * Loads a CUDA module's code onto a GPU, in the form it has: a fatbin (checked against its hash and
 * for code this GPU runs), else the cubin of this GPU's SM version, else PTX through the driver's
 * JIT, with the JIT's error log in the exception.
 */
final class CudaImages {
  private static final int JIT_LOG_BYTES = 64 * 1024;

  private CudaImages() {}

  /** The module's code loaded on {@code d}, whose context is current. */
  static CUmodule load(CudaDevice d, KernelBinary.Cuda cuda) {
    if (cuda.fatbin() != null) {
      return loadFatbin(d, cuda.name(), cuda.fatbin());
    }
    byte[] cubin = cuda.cubins().get(d.smVersion());
    String cubinFailure = null;
    if (cubin != null) {
      CUmodule module = new CUmodule();
      int r = JCudaDriver.cuModuleLoadData(module, cubin);
      if (r == CUresult.CUDA_SUCCESS) {
        return module;
      }
      cubinFailure = "the sm_" + d.smVersion() + " cubin failed to load: " + CUresult.stringFor(r);
    }
    if (cuda.ptx() == null) {
      throw new DeviceException(
          d.name()
              + ": CUDA module "
              + cuda.name()
              + " has no cubin for sm_"
              + d.smVersion()
              + " (it has "
              + cuda.cubins().keySet().stream()
                  .map(k -> "sm_" + k)
                  .collect(Collectors.joining(", "))
              + ") and no PTX for the driver to compile"
              + (cubinFailure == null ? "" : "; " + cubinFailure));
    }
    return loadPtx(d, cuda, cubinFailure);
  }

  /** Loads a fatbin after checking its hash and that it holds code this GPU runs. */
  private static CUmodule loadFatbin(CudaDevice d, String name, KernelBinary.Cuda.Fatbin fatbin) {
    String digest = Sha256.of(fatbin.bytes());
    if (!digest.equalsIgnoreCase(fatbin.sha256())) {
      throw new DeviceException(
          d.name()
              + ": the fatbin of CUDA module "
              + name
              + " is damaged: its SHA-256 is "
              + digest
              + ", the launcher was built with "
              + fatbin.sha256());
    }
    int sm = d.smVersion();
    if (!fatbin.runsOn(sm)) {
      throw new DeviceException(
          d.name()
              + ": CUDA module "
              + name
              + " has no code for this GPU of compute capability "
              + sm / 10
              + "."
              + sm % 10
              + ": its fatbin holds "
              + fatbin.architectures()
              + " (rebuild with kernels.cudaArchitectures including sm_"
              + sm
              + ")");
    }
    CUmodule module = new CUmodule();
    int r = JCudaDriver.cuModuleLoadData(module, fatbin.bytes());
    if (r != CUresult.CUDA_SUCCESS) {
      throw new DeviceException(
          d.name()
              + ": the fatbin of CUDA module "
              + name
              + " ("
              + fatbin.architectures()
              + ") failed to load on compute capability "
              + sm / 10
              + "."
              + sm % 10
              + ": "
              + CUresult.stringFor(r));
    }
    return module;
  }

  /** Loads PTX through the driver's JIT, with its error log in the exception. */
  private static CUmodule loadPtx(CudaDevice d, KernelBinary.Cuda cuda, String cubinFailure) {
    byte[] text = cuda.ptx().getBytes(StandardCharsets.UTF_8);
    byte[] image = new byte[text.length + 1]; // the driver reads PTX up to a NUL
    System.arraycopy(text, 0, image, 0, text.length);
    CUmodule module = new CUmodule();
    String log = "";
    int r;
    try (Arena arena = Arena.ofConfined()) {
      MemorySegment logBuffer = arena.allocate(JIT_LOG_BYTES);
      // cuModuleLoadDataEx takes an array of void* option values; integers travel as pointers.
      MemorySegment values = arena.allocate(ValueLayout.JAVA_LONG, 2);
      values.setAtIndex(ValueLayout.JAVA_LONG, 0, logBuffer.address());
      values.setAtIndex(ValueLayout.JAVA_LONG, 1, JIT_LOG_BYTES);
      int[] options = {
        CUjit_option.CU_JIT_ERROR_LOG_BUFFER, CUjit_option.CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES
      };
      r =
          JCudaDriver.cuModuleLoadDataEx(
              module,
              Pointer.to(image),
              options.length,
              options,
              Pointer.to(values.asByteBuffer()));
      if (r != CUresult.CUDA_SUCCESS) {
        log = logBuffer.getString(0).strip();
      }
    }
    if (r == CUresult.CUDA_ERROR_INVALID_VALUE) {
      // Should the options be refused, load without a log rather than not at all.
      module = new CUmodule();
      r = JCudaDriver.cuModuleLoadData(module, image);
    }
    if (r != CUresult.CUDA_SUCCESS) {
      throw new DeviceException(
          d.name()
              + ": the driver could not compile the PTX of CUDA module "
              + cuda.name()
              + ": "
              + CUresult.stringFor(r)
              + (log.isEmpty() ? "" : "\n" + log)
              + (cubinFailure == null ? "" : "\n(" + cubinFailure + ")"));
    }
    return module;
  }
}
