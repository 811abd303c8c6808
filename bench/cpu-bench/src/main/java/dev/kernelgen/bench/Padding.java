package dev.kernelgen.bench;

/** Padding modes of TensorFlow and TVM convolutions. */
public enum Padding {
  /** Output size {@code ceil(in / stride)}; the input is zero-padded, the extra row at the end. */
  SAME,
  /** No padding: only windows that lie wholly inside the input. */
  VALID
}
