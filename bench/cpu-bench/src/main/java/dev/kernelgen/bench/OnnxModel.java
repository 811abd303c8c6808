package dev.kernelgen.bench;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;

/**
 * ONNX models of a depthwise convolution, encoded by hand so that the benchmark needs no ONNX
 * library. Field numbers are those of {@code onnx.proto}.
 *
 * <p>The graph input is {@code x} (the input tensor); the output is {@code y}. Filter, scale and
 * shift are initializers, so ONNX Runtime may pre-pack them as it would for a real model.
 */
public final class OnnxModel {
  // onnx.proto field numbers.
  private static final int MODEL_IR_VERSION = 1;
  private static final int MODEL_PRODUCER_NAME = 2;
  private static final int MODEL_GRAPH = 7;
  private static final int MODEL_OPSET_IMPORT = 8;
  private static final int OPSET_DOMAIN = 1;
  private static final int OPSET_VERSION = 2;
  private static final int GRAPH_NODE = 1;
  private static final int GRAPH_NAME = 2;
  private static final int GRAPH_INITIALIZER = 5;
  private static final int GRAPH_INPUT = 11;
  private static final int GRAPH_OUTPUT = 12;
  private static final int NODE_INPUT = 1;
  private static final int NODE_OUTPUT = 2;
  private static final int NODE_NAME = 3;
  private static final int NODE_OP_TYPE = 4;
  private static final int NODE_ATTRIBUTE = 5;
  private static final int ATTR_NAME = 1;
  private static final int ATTR_I = 3;
  private static final int ATTR_INTS = 8;
  private static final int ATTR_TYPE = 20;
  private static final int ATTR_TYPE_INT = 2;
  private static final int ATTR_TYPE_INTS = 7;
  private static final int TENSOR_DIMS = 1;
  private static final int TENSOR_DATA_TYPE = 2;
  private static final int TENSOR_NAME = 8;
  private static final int TENSOR_RAW_DATA = 9;
  private static final int DATA_TYPE_FLOAT = 1;
  private static final int VALUE_INFO_NAME = 1;
  private static final int VALUE_INFO_TYPE = 2;
  private static final int TYPE_TENSOR_TYPE = 1;
  private static final int TENSOR_TYPE_ELEM_TYPE = 1;
  private static final int TENSOR_TYPE_SHAPE = 2;
  private static final int SHAPE_DIM = 1;
  private static final int DIM_VALUE = 1;

  static final long IR_VERSION = 8;
  static final long OPSET = 17;

  /** Name of the graph input. */
  public static final String INPUT = "x";

  /** Name of the graph output. */
  public static final String OUTPUT = "y";

  private OnnxModel() {}

  /**
   * A Conv with {@code group = C}. The filter {@code [C, m, K, K]} is already in ONNX's layout
   * {@code [C*m, 1, K, K]}: group {@code c} owns output channels {@code c*m .. c*m+m-1}, and output
   * channel {@code c*m + q} is filter slice {@code [c][q]}.
   */
  public static byte[] depthwise(Workload w, float[] filter) {
    ProtoWriter graph = new ProtoWriter();
    graph.message(GRAPH_NODE, conv(w, OUTPUT));
    graph.string(GRAPH_NAME, "depthwise");
    graph.message(GRAPH_INITIALIZER, filterTensor(w, filter));
    graph.message(GRAPH_INPUT, valueInfo(INPUT, w.inputShape()));
    graph.message(GRAPH_OUTPUT, valueInfo(OUTPUT, w.outputShape()));
    return model(graph);
  }

  /**
   * Conv, then {@code Mul(scale)}, {@code Add(shift)} with scale and shift shaped {@code [1, C*m,
   * 1, 1]} to broadcast per output channel, then Relu: the three ops ONNX Runtime may fuse.
   */
  public static byte[] fused(Workload w, float[] filter, float[] scale, float[] shift) {
    long[] perChannel = {1, w.outChannels(), 1, 1};
    ProtoWriter graph = new ProtoWriter();
    graph.message(GRAPH_NODE, conv(w, "conv"));
    graph.message(GRAPH_NODE, node("Mul", "scaled", "conv", "scale"));
    graph.message(GRAPH_NODE, node("Add", "shifted", "scaled", "shift"));
    graph.message(GRAPH_NODE, node("Relu", OUTPUT, "shifted"));
    graph.string(GRAPH_NAME, "depthwise_scale_shift_relu");
    graph.message(GRAPH_INITIALIZER, filterTensor(w, filter));
    graph.message(GRAPH_INITIALIZER, floatTensor("scale", perChannel, scale));
    graph.message(GRAPH_INITIALIZER, floatTensor("shift", perChannel, shift));
    graph.message(GRAPH_INPUT, valueInfo(INPUT, w.inputShape()));
    graph.message(GRAPH_OUTPUT, valueInfo(OUTPUT, w.outputShape()));
    return model(graph);
  }

  private static byte[] model(ProtoWriter graph) {
    return new ProtoWriter()
        .varint(MODEL_IR_VERSION, IR_VERSION)
        .string(MODEL_PRODUCER_NAME, "kernelgen-cpu-bench")
        .message(MODEL_GRAPH, graph)
        .message(
            MODEL_OPSET_IMPORT,
            new ProtoWriter().string(OPSET_DOMAIN, "").varint(OPSET_VERSION, OPSET))
        .toByteArray();
  }

  private static ProtoWriter conv(Workload w, String output) {
    return node("Conv", output, INPUT, "filter")
        .message(NODE_ATTRIBUTE, intAttr("group", w.c()))
        .message(NODE_ATTRIBUTE, intsAttr("kernel_shape", w.kernel(), w.kernel()))
        .message(NODE_ATTRIBUTE, intsAttr("strides", w.stride(), w.stride()))
        .message(NODE_ATTRIBUTE, intsAttr("dilations", 1, 1))
        // ONNX pads: all begins, then all ends.
        .message(
            NODE_ATTRIBUTE, intsAttr("pads", w.padTop(), w.padLeft(), w.padBottom(), w.padRight()));
  }

  private static ProtoWriter node(String opType, String output, String... inputs) {
    ProtoWriter node = new ProtoWriter();
    for (String in : inputs) {
      node.string(NODE_INPUT, in);
    }
    return node.string(NODE_OUTPUT, output)
        .string(NODE_NAME, opType.toLowerCase() + "_" + output)
        .string(NODE_OP_TYPE, opType);
  }

  static ProtoWriter intAttr(String name, long value) {
    return new ProtoWriter()
        .string(ATTR_NAME, name)
        .varint(ATTR_I, value)
        .varint(ATTR_TYPE, ATTR_TYPE_INT);
  }

  static ProtoWriter intsAttr(String name, long... values) {
    return new ProtoWriter()
        .string(ATTR_NAME, name)
        .varints(ATTR_INTS, values)
        .varint(ATTR_TYPE, ATTR_TYPE_INTS);
  }

  private static ProtoWriter filterTensor(Workload w, float[] filter) {
    long[] dims = {w.outChannels(), 1, w.kernel(), w.kernel()};
    return floatTensor("filter", dims, filter);
  }

  static ProtoWriter floatTensor(String name, long[] dims, float[] data) {
    long count = 1;
    for (long d : dims) {
      count *= d;
    }
    if (count != data.length) {
      throw new IllegalArgumentException(
          "tensor " + name + " has " + data.length + " elements, its dims need " + count);
    }
    ByteBuffer raw = ByteBuffer.allocate(data.length * Float.BYTES).order(ByteOrder.LITTLE_ENDIAN);
    raw.asFloatBuffer().put(data);
    return new ProtoWriter()
        .varints(TENSOR_DIMS, dims)
        .varint(TENSOR_DATA_TYPE, DATA_TYPE_FLOAT)
        .string(TENSOR_NAME, name)
        .bytes(TENSOR_RAW_DATA, raw.array());
  }

  static ProtoWriter valueInfo(String name, long[] dims) {
    ProtoWriter shape = new ProtoWriter();
    for (long d : dims) {
      shape.message(SHAPE_DIM, new ProtoWriter().varint(DIM_VALUE, d));
    }
    ProtoWriter tensorType =
        new ProtoWriter()
            .varint(TENSOR_TYPE_ELEM_TYPE, DATA_TYPE_FLOAT)
            .message(TENSOR_TYPE_SHAPE, shape);
    return new ProtoWriter()
        .string(VALUE_INFO_NAME, name)
        .message(VALUE_INFO_TYPE, new ProtoWriter().message(TYPE_TENSOR_TYPE, tensorType));
  }
}
