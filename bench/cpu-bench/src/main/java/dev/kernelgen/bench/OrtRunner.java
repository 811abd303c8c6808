package dev.kernelgen.bench;

import ai.onnxruntime.OnnxTensor;
import ai.onnxruntime.OrtEnvironment;
import ai.onnxruntime.OrtException;
import ai.onnxruntime.OrtSession;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.FloatBuffer;
import java.util.Map;

/**
 * An ONNX Runtime session over one model with one float input {@link OnnxModel#INPUT} and one
 * output {@link OnnxModel#OUTPUT}. Input and output are tensors over direct buffers, made once and
 * pinned, so a timed run is the session's work alone: no copies, no output allocation.
 */
public final class OrtRunner implements AutoCloseable {
  private final OrtSession session;
  private final FloatBuffer inputBuffer;
  private final FloatBuffer outputBuffer;
  private final OnnxTensor input;
  private final OnnxTensor output;
  private final Map<String, OnnxTensor> inputs;
  private final Map<String, OnnxTensor> outputs;

  /** A session with as many intra-op threads as processors and all graph optimizations. */
  public OrtRunner(byte[] model, long[] inputShape, long[] outputShape) throws OrtException {
    OrtEnvironment env = OrtEnvironment.getEnvironment();
    try (OrtSession.SessionOptions options = new OrtSession.SessionOptions()) {
      options.setIntraOpNumThreads(Runtime.getRuntime().availableProcessors());
      options.setOptimizationLevel(OrtSession.SessionOptions.OptLevel.ALL_OPT);
      session = env.createSession(model, options);
    }
    inputBuffer = directFloats(count(inputShape));
    outputBuffer = directFloats(count(outputShape));
    input = OnnxTensor.createTensor(env, inputBuffer, inputShape);
    output = OnnxTensor.createTensor(env, outputBuffer, outputShape);
    inputs = Map.of(OnnxModel.INPUT, input);
    outputs = Map.of(OnnxModel.OUTPUT, output);
  }

  /** A runner of {@code w}'s model, plain or fused. */
  public static OrtRunner of(
      Workload w, boolean fused, float[] filter, float[] scale, float[] shift) throws OrtException {
    byte[] model =
        fused ? OnnxModel.fused(w, filter, scale, shift) : OnnxModel.depthwise(w, filter);
    return new OrtRunner(model, w.inputShape(), w.outputShape());
  }

  /** Copies {@code in} into the input tensor, runs once, and returns a copy of the output. */
  public float[] run(float[] in) throws OrtException {
    setInput(in);
    runPinned();
    float[] out = new float[outputBuffer.capacity()];
    outputBuffer.get(0, out);
    return out;
  }

  /** One run on {@code in} (set once, here) into the pinned output, for timing. */
  public Runnable timed(float[] in) {
    setInput(in);
    return () -> {
      try {
        runPinned();
      } catch (OrtException e) {
        throw new IllegalStateException("ONNX Runtime run failed", e);
      }
    };
  }

  private void setInput(float[] in) {
    if (in.length != inputBuffer.capacity()) {
      throw new IllegalArgumentException(
          "input has " + in.length + " elements, the model takes " + inputBuffer.capacity());
    }
    inputBuffer.put(0, in);
  }

  private void runPinned() throws OrtException {
    // The result owns nothing here (the output is pinned), but closing it is still the contract.
    session.run(inputs, outputs).close();
  }

  private static FloatBuffer directFloats(int count) {
    return ByteBuffer.allocateDirect(count * Float.BYTES)
        .order(ByteOrder.nativeOrder())
        .asFloatBuffer();
  }

  private static int count(long[] shape) {
    long n = 1;
    for (long d : shape) {
      n *= d;
    }
    return Math.toIntExact(n);
  }

  @Override
  public void close() throws OrtException {
    input.close();
    output.close();
    session.close();
  }
}
