package dev.kernelgen.runtime.backend;

import dev.kernelgen.runtime.Device;
import dev.kernelgen.runtime.KernelFunction;
import dev.kernelgen.runtime.KernelModule;
import dev.kernelgen.runtime.KernelSignature;
import dev.kernelgen.runtime.Lifecycle;

/**
 * The skeleton of a loaded module (CUDA, OpenCL, C), written once: its device and name, its kernels
 * bound once by name, use after close as {@link IllegalStateException}, and a close that happens
 * once, after the launches in flight, releasing what the module holds only while the device is open
 * (after the device's close it went with the device). The backend binds a kernel and frees.
 *
 * @param <D> the backend's device
 * @param <F> the backend's function
 */
public abstract class BackendModule<D extends Device, F extends KernelFunction>
    implements KernelModule {
  private final D device;
  private final Lifecycle deviceLifecycle;
  private final String backend;
  private final String moduleName;
  private final FunctionCache<F> functions;
  private final Lifecycle lifecycle;

  /**
   * @param backend the backend, for messages: {@code "CUDA"} (a "CUDA module", a "CUDA kernel")
   */
  protected BackendModule(D device, Lifecycle deviceLifecycle, String backend, String moduleName) {
    this.device = device;
    this.deviceLifecycle = deviceLifecycle;
    this.backend = backend;
    this.moduleName = moduleName;
    this.functions = new FunctionCache<>(backend + " kernel");
    this.lifecycle = new Lifecycle(this, deviceLifecycle);
  }

  /** Binds {@code kernel} of this module; called once per kernel. */
  protected abstract F bind(String kernel, KernelSignature signature);

  /**
   * Frees what the module holds on the device, inside a use of the device; called once, and only
   * while the device is open. Nothing by default.
   */
  protected void release() {}

  @Override
  public final D device() {
    return device;
  }

  /** The module's name, for messages. */
  protected final String moduleName() {
    return moduleName;
  }

  /** The module's lifecycle, a child of the device's: its functions launch inside its uses. */
  protected final Lifecycle lifecycle() {
    return lifecycle;
  }

  /** The functions bound so far. */
  protected final Iterable<F> bound() {
    return functions.bound();
  }

  @Override
  public final KernelFunction function(String kernel, KernelSignature signature) {
    lifecycle.checkOpen();
    return functions.get(kernel, signature, this::bind);
  }

  /** Waits for the launches in flight; later uses of the module and its functions throw. */
  @Override
  public final void close() {
    if (lifecycle.close()) {
      Lifecycle.Use u = deviceLifecycle.tryEnter();
      if (u != null) {
        try (u) {
          release();
        }
      }
      functions.clear();
    }
  }

  @Override
  public String toString() {
    return backend + " module " + moduleName + " on " + device.name();
  }
}
