package dev.kernelgen.maven.launcher;

import com.palantir.javapoet.ClassName;
import dev.kernelgen.annotations.Target;
import dev.kernelgen.runtime.Checks;
import dev.kernelgen.runtime.DataType;
import dev.kernelgen.runtime.Device;
import dev.kernelgen.runtime.DeviceBuffer;
import dev.kernelgen.runtime.DeviceException;
import dev.kernelgen.runtime.HostTensor;
import dev.kernelgen.runtime.KernelBinary;
import dev.kernelgen.runtime.KernelModule;
import dev.kernelgen.runtime.KernelSignature;
import dev.kernelgen.runtime.LaunchConfig;
import dev.kernelgen.runtime.Lifecycle;
import dev.kernelgen.runtime.launch.DeviceTensor;
import dev.kernelgen.runtime.launch.ElementCounts;
import dev.kernelgen.runtime.launch.Launchers;
import dev.kernelgen.runtime.launch.Workspace;

/**
 * The runtime classes that generated launchers name, taken from the classes themselves (the plugin
 * depends on the runtime), so that a renamed or moved class breaks the plugin's build rather than
 * the launchers it generates. Launchers reach the runtime only through its public API, never a
 * backend's classes: loading per target goes through {@code Launchers}.
 */
final class RuntimeTypes {
  static final ClassName DEVICE = ClassName.get(Device.class);
  static final ClassName DEVICE_EXCEPTION = ClassName.get(DeviceException.class);
  static final ClassName DATA_TYPE = ClassName.get(DataType.class);
  static final ClassName HOST_TENSOR = ClassName.get(HostTensor.class);
  static final ClassName DEVICE_BUFFER = ClassName.get(DeviceBuffer.class);
  static final ClassName KERNEL_MODULE = ClassName.get(KernelModule.class);
  static final ClassName KERNEL_BINARY = ClassName.get(KernelBinary.class);
  static final ClassName JAVA_BINARY = ClassName.get(KernelBinary.Java.class);
  static final ClassName SIGNATURE = ClassName.get(KernelSignature.class);
  static final ClassName PARAM_KIND = ClassName.get(KernelSignature.ParamKind.class);
  static final ClassName LAUNCH_CONFIG = ClassName.get(LaunchConfig.class);
  static final ClassName TARGET = ClassName.get(Target.class);
  static final ClassName DEVICE_TENSOR = ClassName.get(DeviceTensor.class);
  static final ClassName LAUNCHERS = ClassName.get(Launchers.class);
  static final ClassName LIFECYCLE = ClassName.get(Lifecycle.class);
  static final ClassName LIFECYCLE_USE = ClassName.get(Lifecycle.Use.class);
  static final ClassName CHECKS = ClassName.get(Checks.class);
  static final ClassName WORKSPACE = ClassName.get(Workspace.class);
  static final ClassName WORKSPACE_LEASE = ClassName.get(Workspace.Lease.class);
  static final ClassName ELEMENT_COUNTS = ClassName.get(ElementCounts.class);

  private RuntimeTypes() {}
}
