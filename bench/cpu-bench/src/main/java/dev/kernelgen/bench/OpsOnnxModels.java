package dev.kernelgen.bench;

/**
 * ONNX models of the operator benchmark (MatMul, Softmax, Conv, Conv + BatchNormalization + swish),
 * encoded by hand with {@link ProtoWriter} as {@link OnnxModel} encodes the depthwise ones. Graph
 * input {@link OnnxModel#INPUT}, output {@link OnnxModel#OUTPUT}; weights are initializers.
 */
public final class OpsOnnxModels {
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

  private OpsOnnxModels() {}

  /** {@code y = x @ b}, x {@code [m, k]} the input, b {@code [k, n]} an initializer. */
  public static byte[] matmul(int m, int k, int n, float[] b) {
    ProtoWriter graph = new ProtoWriter();
    graph.message(GRAPH_NODE, node("MatMul", OnnxModel.OUTPUT, OnnxModel.INPUT, "b"));
    graph.string(GRAPH_NAME, "matmul");
    graph.message(GRAPH_INITIALIZER, OnnxModel.floatTensor("b", new long[] {k, n}, b));
    graph.message(GRAPH_INPUT, OnnxModel.valueInfo(OnnxModel.INPUT, new long[] {m, k}));
    graph.message(GRAPH_OUTPUT, OnnxModel.valueInfo(OnnxModel.OUTPUT, new long[] {m, n}));
    return model(graph);
  }

  /**
   * One head of attention, {@code softmax(q k^T / sqrt(d)) v}: q {@code [seq, d]} the input, {@code
   * kT} ({@code [d, seq]}) and {@code v} ({@code [seq, d]}) initializers (ORT may pre-pack them;
   * ours reads k and v as inputs).
   */
  public static byte[] attention(int seq, int d, float[] kT, float[] v) {
    ProtoWriter graph = new ProtoWriter();
    graph.message(GRAPH_NODE, node("MatMul", "scores", OnnxModel.INPUT, "kT"));
    graph.message(GRAPH_NODE, node("Mul", "scaled", "scores", "scale"));
    graph.message(
        GRAPH_NODE,
        node("Softmax", "weights", "scaled").message(NODE_ATTRIBUTE, OnnxModel.intAttr("axis", 1)));
    graph.message(GRAPH_NODE, node("MatMul", OnnxModel.OUTPUT, "weights", "v"));
    graph.string(GRAPH_NAME, "attention");
    graph.message(GRAPH_INITIALIZER, OnnxModel.floatTensor("kT", new long[] {d, seq}, kT));
    graph.message(GRAPH_INITIALIZER, OnnxModel.floatTensor("v", new long[] {seq, d}, v));
    graph.message(
        GRAPH_INITIALIZER,
        OnnxModel.floatTensor("scale", new long[] {}, new float[] {(float) (1 / Math.sqrt(d))}));
    graph.message(GRAPH_INPUT, OnnxModel.valueInfo(OnnxModel.INPUT, new long[] {seq, d}));
    graph.message(GRAPH_OUTPUT, OnnxModel.valueInfo(OnnxModel.OUTPUT, new long[] {seq, d}));
    return model(graph);
  }

  /** Softmax over the last axis of {@code [rows, cols]}. */
  public static byte[] softmax(int rows, int cols) {
    ProtoWriter graph = new ProtoWriter();
    graph.message(
        GRAPH_NODE,
        node("Softmax", OnnxModel.OUTPUT, OnnxModel.INPUT)
            .message(NODE_ATTRIBUTE, OnnxModel.intAttr("axis", 1)));
    graph.string(GRAPH_NAME, "softmax");
    long[] shape = {rows, cols};
    graph.message(GRAPH_INPUT, OnnxModel.valueInfo(OnnxModel.INPUT, shape));
    graph.message(GRAPH_OUTPUT, OnnxModel.valueInfo(OnnxModel.OUTPUT, shape));
    return model(graph);
  }

  /**
   * The mean of the squares of each row of {@code [rows, cols]} (RMS norm's statistic):
   * ReduceSumSquare over axis 1 (opset 17: axes as an attribute), then a division by {@code cols}.
   */
  public static byte[] meanSquare(int rows, int cols) {
    ProtoWriter graph = new ProtoWriter();
    graph.message(
        GRAPH_NODE,
        node("ReduceSumSquare", "sumsq", OnnxModel.INPUT)
            .message(NODE_ATTRIBUTE, OnnxModel.intsAttr("axes", 1))
            .message(NODE_ATTRIBUTE, OnnxModel.intAttr("keepdims", 0)));
    graph.message(GRAPH_NODE, node("Div", OnnxModel.OUTPUT, "sumsq", "n"));
    graph.string(GRAPH_NAME, "mean_square");
    graph.message(GRAPH_INITIALIZER, OnnxModel.floatTensor("n", new long[] {}, new float[] {cols}));
    graph.message(GRAPH_INPUT, OnnxModel.valueInfo(OnnxModel.INPUT, new long[] {rows, cols}));
    graph.message(GRAPH_OUTPUT, OnnxModel.valueInfo(OnnxModel.OUTPUT, new long[] {rows}));
    return model(graph);
  }

  /**
   * LayerNormalization over the last axis of {@code [rows, cols]} (epsilon 1e-5, the default), with
   * {@code gamma} and {@code beta} of {@code cols} as initializers.
   */
  public static byte[] layerNorm(int rows, int cols, float[] gamma, float[] beta) {
    ProtoWriter graph = new ProtoWriter();
    graph.message(
        GRAPH_NODE,
        node("LayerNormalization", OnnxModel.OUTPUT, OnnxModel.INPUT, "gamma", "beta")
            .message(NODE_ATTRIBUTE, OnnxModel.intAttr("axis", -1)));
    graph.string(GRAPH_NAME, "layer_norm");
    graph.message(GRAPH_INITIALIZER, OnnxModel.floatTensor("gamma", new long[] {cols}, gamma));
    graph.message(GRAPH_INITIALIZER, OnnxModel.floatTensor("beta", new long[] {cols}, beta));
    long[] shape = {rows, cols};
    graph.message(GRAPH_INPUT, OnnxModel.valueInfo(OnnxModel.INPUT, shape));
    graph.message(GRAPH_OUTPUT, OnnxModel.valueInfo(OnnxModel.OUTPUT, shape));
    return model(graph);
  }

  /** A 3x3 Conv, stride 1, pad 1, no bias: x {@code [n, c, h, w]}, filter {@code [f, c, 3, 3]}. */
  public static byte[] conv3x3(int n, int c, int h, int w, int f, float[] filter) {
    ProtoWriter graph = new ProtoWriter();
    graph.message(
        GRAPH_NODE,
        node("Conv", OnnxModel.OUTPUT, OnnxModel.INPUT, "filter")
            .message(NODE_ATTRIBUTE, OnnxModel.intsAttr("kernel_shape", 3, 3))
            .message(NODE_ATTRIBUTE, OnnxModel.intsAttr("strides", 1, 1))
            .message(NODE_ATTRIBUTE, OnnxModel.intsAttr("dilations", 1, 1))
            .message(NODE_ATTRIBUTE, OnnxModel.intsAttr("pads", 1, 1, 1, 1)));
    graph.string(GRAPH_NAME, "conv3x3");
    graph.message(
        GRAPH_INITIALIZER, OnnxModel.floatTensor("filter", new long[] {f, c, 3, 3}, filter));
    graph.message(GRAPH_INPUT, OnnxModel.valueInfo(OnnxModel.INPUT, new long[] {n, c, h, w}));
    graph.message(GRAPH_OUTPUT, OnnxModel.valueInfo(OnnxModel.OUTPUT, new long[] {n, f, h, w}));
    return model(graph);
  }

  /**
   * The conv + batch norm + swish sample's operator: a 3x3 Conv (stride 1, pad 1, no bias) of x
   * {@code [n, c, h, w]} by weight {@code [k, c, 3, 3]}, BatchNormalization with the running
   * statistics (epsilon 1e-5, ONNX's default), then {@code Mul(y, Sigmoid(y))}: the graph an export
   * of {@code conv2d -> batch_norm -> silu} gives, which ONNX Runtime may fold and fuse.
   */
  public static byte[] convBnSwish(
      int n,
      int c,
      int h,
      int w,
      int k,
      float[] weight,
      float[] gamma,
      float[] beta,
      float[] mean,
      float[] variance) {
    ProtoWriter graph = new ProtoWriter();
    graph.message(
        GRAPH_NODE,
        node("Conv", "conv", OnnxModel.INPUT, "weight")
            .message(NODE_ATTRIBUTE, OnnxModel.intsAttr("kernel_shape", 3, 3))
            .message(NODE_ATTRIBUTE, OnnxModel.intsAttr("strides", 1, 1))
            .message(NODE_ATTRIBUTE, OnnxModel.intsAttr("dilations", 1, 1))
            .message(NODE_ATTRIBUTE, OnnxModel.intsAttr("pads", 1, 1, 1, 1)));
    graph.message(
        GRAPH_NODE, node("BatchNormalization", "bn", "conv", "gamma", "beta", "mean", "variance"));
    graph.message(GRAPH_NODE, node("Sigmoid", "sigmoid", "bn"));
    graph.message(GRAPH_NODE, node("Mul", OnnxModel.OUTPUT, "bn", "sigmoid"));
    graph.string(GRAPH_NAME, "conv_bn_swish");
    graph.message(
        GRAPH_INITIALIZER, OnnxModel.floatTensor("weight", new long[] {k, c, 3, 3}, weight));
    long[] perChannel = {k};
    graph.message(GRAPH_INITIALIZER, OnnxModel.floatTensor("gamma", perChannel, gamma));
    graph.message(GRAPH_INITIALIZER, OnnxModel.floatTensor("beta", perChannel, beta));
    graph.message(GRAPH_INITIALIZER, OnnxModel.floatTensor("mean", perChannel, mean));
    graph.message(GRAPH_INITIALIZER, OnnxModel.floatTensor("variance", perChannel, variance));
    graph.message(GRAPH_INPUT, OnnxModel.valueInfo(OnnxModel.INPUT, new long[] {n, c, h, w}));
    graph.message(GRAPH_OUTPUT, OnnxModel.valueInfo(OnnxModel.OUTPUT, new long[] {n, k, h, w}));
    return model(graph);
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

  private static byte[] model(ProtoWriter graph) {
    return new ProtoWriter()
        .varint(MODEL_IR_VERSION, OnnxModel.IR_VERSION)
        .string(MODEL_PRODUCER_NAME, "kernelgen-cpu-bench")
        .message(MODEL_GRAPH, graph)
        .message(
            MODEL_OPSET_IMPORT,
            new ProtoWriter().string(OPSET_DOMAIN, "").varint(OPSET_VERSION, OnnxModel.OPSET))
        .toByteArray();
  }
}
