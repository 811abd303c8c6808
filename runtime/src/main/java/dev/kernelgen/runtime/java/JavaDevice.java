package dev.kernelgen.runtime.java;

import dev.kernelgen.annotations.Target;
import dev.kernelgen.runtime.Device;
import dev.kernelgen.runtime.DeviceBuffer;
import dev.kernelgen.runtime.DeviceException;
import dev.kernelgen.runtime.HostTensor;
import dev.kernelgen.runtime.KernelBinary;
import dev.kernelgen.runtime.KernelFunction;
import dev.kernelgen.runtime.KernelModule;
import dev.kernelgen.runtime.KernelSignature;
import dev.kernelgen.runtime.LaunchConfig;
import dev.kernelgen.runtime.Lifecycle;
import dev.kernelgen.runtime.backend.FunctionCache;
import dev.kernelgen.runtime.backend.HostDevice;
import dev.kernelgen.runtime.backend.HostPointers;
import java.lang.foreign.MemorySegment;
import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.util.Arrays;
import java.util.concurrent.ForkJoinPool;
import java.util.concurrent.ForkJoinWorkerThread;

/**
 * The JVM itself, running generated Java kernels: public static methods of a generated class,
 * called through method handles. Works everywhere, without any native toolchain or device.
 *
 * <p>A pointer parameter of the Java method may be declared as {@code MemorySegment} (the tensor's
 * memory), {@link HostTensor} or {@link DeviceBuffer}; scalars as int, long, float or double.
 *
 * <p>Kernels run on the device's own fork-join pool, one worker per processor, made once and reused
 * by every launch: the generated kernels' parallel loops are parallel streams, which run on the
 * pool of the thread that starts them, so they neither make threads per call nor compete with the
 * application's work on the common pool.
 */
public final class JavaDevice extends HostDevice {
  private static final JavaDevice INSTANCE = new JavaDevice(true);

  private static final ForkJoinPool POOL =
      new ForkJoinPool(
          Runtime.getRuntime().availableProcessors(),
          pool -> {
            ForkJoinWorkerThread t =
                ForkJoinPool.defaultForkJoinWorkerThreadFactory.newThread(pool);
            t.setName("kernelgen-java-" + t.getPoolIndex());
            t.setDaemon(true);
            return t;
          },
          null,
          false);

  /** A thread that owns no arena: a segment it cannot access is confined to another thread. */
  private static final Thread NOT_AN_OWNER = Thread.ofPlatform().unstarted(() -> {});

  /**
   * @param shared whether this is the process-wide device, which closing leaves open
   */
  private JavaDevice(boolean shared) {
    super(shared);
  }

  /** The process-wide Java device; {@link #close()} leaves it open. */
  public static JavaDevice instance() {
    return INSTANCE;
  }

  /** A Java device of the caller's own, which {@link #close()} closes. */
  public static JavaDevice create() {
    return new JavaDevice(false);
  }

  @Override
  public Target target() {
    return Target.JAVA;
  }

  @Override
  public String name() {
    return "Java ("
        + Runtime.version()
        + ", "
        + Runtime.getRuntime().availableProcessors()
        + " threads)";
  }

  @Override
  public KernelModule loadModule(KernelBinary binary) {
    if (!(binary instanceof KernelBinary.Java j)) {
      throw new DeviceException(name() + " runs Java kernels, not " + binary.describe());
    }
    lifecycle().checkOpen();
    return new JavaModule(j);
  }

  /** The pool that runs the kernels and their parallel loops. */
  public static ForkJoinPool pool() {
    return POOL;
  }

  private final class JavaModule implements KernelModule {
    private final KernelBinary.Java binary;
    private final FunctionCache<JavaFunction> functions = new FunctionCache<>("Java kernel");
    private final Lifecycle lifecycle;

    JavaModule(KernelBinary.Java binary) {
      this.binary = binary;
      this.lifecycle = new Lifecycle(this, JavaDevice.this.lifecycle());
    }

    @Override
    public Device device() {
      return JavaDevice.this;
    }

    @Override
    public KernelFunction function(String name, KernelSignature signature) {
      lifecycle.checkOpen();
      return functions.get(name, signature, this::bind);
    }

    private JavaFunction bind(String name, KernelSignature signature) {
      Method found = null;
      for (Method m : binary.kernels().getMethods()) {
        if (m.getName().equals(name)
            && Modifier.isStatic(m.getModifiers())
            && m.getParameterCount() == signature.size()) {
          found = m;
        }
      }
      if (found == null) {
        throw new DeviceException(
            name()
                + ": Java kernel class "
                + binary.kernels().getName()
                + " has no public static method "
                + name
                + " with "
                + signature.size()
                + " parameters");
      }
      try {
        return new JavaFunction(
            name,
            signature,
            found.getParameterTypes(),
            spreader(MethodHandles.publicLookup().unreflect(found)),
            lifecycle);
      } catch (IllegalAccessException e) {
        throw new DeviceException(name() + ": cannot access Java kernel " + found, e);
      }
    }

    /**
     * {@code m} taking its arguments as one {@code Object[]}, for {@code invokeExact}: unlike
     * {@code invokeWithArguments}, which adapts the handle anew on every call, it costs a launch
     * nothing beyond the unboxing.
     */
    private static MethodHandle spreader(MethodHandle m) {
      return m.asSpreader(Object[].class, m.type().parameterCount())
          .asType(MethodType.methodType(void.class, Object[].class));
    }

    /** Released after the launches in flight; its functions no longer launch. */
    @Override
    public void close() {
      lifecycle.close();
    }

    @Override
    public String toString() {
      return "Java module " + binary.name() + " on " + JavaDevice.this.name();
    }
  }

  private final class JavaFunction implements KernelFunction {
    private final String name;
    private final KernelSignature signature;
    private final Class<?>[] types;
    private final MethodHandle handle;
    private final Lifecycle module;

    JavaFunction(
        String name,
        KernelSignature signature,
        Class<?>[] types,
        MethodHandle handle,
        Lifecycle module) {
      this.module = module;
      this.name = name;
      this.signature = signature;
      this.types = types;
      this.handle = handle;
    }

    @Override
    public String name() {
      return name;
    }

    @Override
    public KernelSignature signature() {
      return signature;
    }

    @Override
    public void launch(LaunchConfig config, Object... args) {
      String where = JavaDevice.this.name() + ", kernel " + name;
      signature.checkArguments(where, args);
      Object[] values = new Object[args.length];
      for (int i = 0; i < args.length; i++) {
        values[i] = convert(where, i, args[i], types[i]);
      }
      try (Lifecycle.Use u = module.enter()) {
        switch (runOnPool(values)) {
          case null -> {}
          // The kernels index tensors within their shapes but at indices read from a tensor (a
          // gather), which the segment's bounds check stops: the same error as the C kernels'.
          case IndexOutOfBoundsException e ->
              throw new DeviceException(
                  where
                      + ": an index read from a tensor is outside the tensor it indexes (a gather;"
                      + " the outputs are incomplete): "
                      + e.getMessage(),
                  e);
          // An integer floordiv or floormod by a value read from a tensor that is 0.
          case ArithmeticException e ->
              throw new DeviceException(
                  where
                      + ": integer division by zero (a floordiv or floormod by a value read from a"
                      + " tensor; the outputs are incomplete): "
                      + e.getMessage(),
                  e);
          case RuntimeException e -> throw e;
          case Error e -> throw e;
          case Throwable t -> throw new DeviceException(where + ": " + t, t);
        }
      }
    }

    /**
     * Whether an argument's memory is confined to the calling thread (a confined arena's): such a
     * kernel runs on the caller, as it did before the pool.
     */
    private static boolean confinedArgument(Object[] values) {
      for (Object v : values) {
        MemorySegment s =
            switch (v) {
              case MemorySegment m -> m;
              case HostTensor t -> t.segment();
              case null, default -> null;
            };
        if (s != null && !s.isAccessibleBy(NOT_AN_OWNER)) {
          return true;
        }
      }
      return false;
    }

    /**
     * Runs the kernel on {@link #POOL}; returns what it threw, as thrown (not wrapped), or null.
     */
    private Throwable runOnPool(Object[] values) {
      Throwable[] failure = {null};
      Runnable call =
          () -> {
            try {
              handle.invokeExact(values);
            } catch (Throwable t) {
              failure[0] = t;
            }
          };
      if (Thread.currentThread() instanceof ForkJoinWorkerThread w && w.getPool() == POOL
          || confinedArgument(values)) {
        call.run();
      } else {
        POOL.submit(call).join();
      }
      return failure[0];
    }

    private Object convert(String where, int i, Object arg, Class<?> type) {
      if (type == MemorySegment.class) {
        return HostPointers.of(JavaDevice.this, where, i, arg);
      }
      if (type.isInstance(arg) || MethodType.methodType(type).wrap().returnType().isInstance(arg)) {
        return arg;
      }
      if (type == long.class && arg instanceof Integer n) {
        return n.longValue();
      }
      if (type == double.class && arg instanceof Float f) {
        return f.doubleValue();
      }
      throw new IllegalArgumentException(
          where
              + ": argument "
              + i
              + " ("
              + arg
              + ") does not fit parameter type "
              + type.getSimpleName()
              + " of "
              + Arrays.toString(types));
    }
  }
}
