package dev.kernelgen.bench;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;

/**
 * Encodes one protocol buffer message: field tags, varints and length-delimited fields, the subset
 * that ONNX models need. Nested messages are encoded into their own writer first, then added whole
 * with {@link #message}, since a length prefix needs the length.
 *
 * <p>Repeated scalar fields are written unpacked, one tag per element: the encoding of proto2
 * (which {@code onnx.proto} is), and one that every parser accepts.
 */
final class ProtoWriter {
  static final int WIRE_VARINT = 0;
  static final int WIRE_LENGTH_DELIMITED = 2;

  private final ByteArrayOutputStream out = new ByteArrayOutputStream();

  /** An int32, int64 or enum field. Negative values take ten bytes, as protobuf requires. */
  ProtoWriter varint(int field, long value) {
    tag(field, WIRE_VARINT);
    rawVarint(value);
    return this;
  }

  /** A repeated int64 field, unpacked. */
  ProtoWriter varints(int field, long... values) {
    for (long v : values) {
      varint(field, v);
    }
    return this;
  }

  ProtoWriter bytes(int field, byte[] value) {
    tag(field, WIRE_LENGTH_DELIMITED);
    rawVarint(value.length);
    out.writeBytes(value);
    return this;
  }

  ProtoWriter string(int field, String value) {
    return bytes(field, value.getBytes(StandardCharsets.UTF_8));
  }

  ProtoWriter message(int field, ProtoWriter message) {
    return bytes(field, message.toByteArray());
  }

  byte[] toByteArray() {
    return out.toByteArray();
  }

  private void tag(int field, int wireType) {
    if (field <= 0 || field >= (1 << 29)) {
      throw new IllegalArgumentException("bad protobuf field number " + field);
    }
    rawVarint(((long) field << 3) | wireType);
  }

  private void rawVarint(long value) {
    // Seven bits at a time, low first; the high bit says more bytes follow.
    while ((value & ~0x7FL) != 0) {
      out.write((int) ((value & 0x7F) | 0x80));
      value >>>= 7;
    }
    out.write((int) value);
  }
}
