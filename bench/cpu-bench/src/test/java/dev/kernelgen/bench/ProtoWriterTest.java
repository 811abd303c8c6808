package dev.kernelgen.bench;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class ProtoWriterTest {
  private static byte[] bytes(int... values) {
    byte[] out = new byte[values.length];
    for (int i = 0; i < values.length; i++) {
      out[i] = (byte) values[i];
    }
    return out;
  }

  @Test
  void varintsAreSevenBitGroupsLowFirst() {
    assertThat(new ProtoWriter().varint(1, 1).toByteArray()).isEqualTo(bytes(0x08, 0x01));
    // 300 = 0b10_0101100: low group 0x2C with the continuation bit, then 0x02.
    assertThat(new ProtoWriter().varint(1, 300).toByteArray()).isEqualTo(bytes(0x08, 0xAC, 0x02));
    // Negative int64: two's complement, ten bytes.
    assertThat(new ProtoWriter().varint(1, -1).toByteArray())
        .isEqualTo(bytes(0x08, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0x01));
  }

  @Test
  void fieldNumbersAbove15TakeTwoTagBytes() {
    // Field 20, wire type 0: (20 << 3) = 160 = 0xA0 0x01.
    assertThat(new ProtoWriter().varint(20, 7).toByteArray()).isEqualTo(bytes(0xA0, 0x01, 0x07));
  }

  @Test
  void intsAttributeMatchesHandEncoding() {
    byte[] expected =
        bytes(
            0x0A, 0x07, 's', 't', 'r', 'i', 'd', 'e', 's', // name = 1
            0x40, 0x02, 0x40, 0x02, // ints = 8, unpacked
            0xA0, 0x01, 0x07); // type = 20: INTS
    assertThat(OnnxModel.intsAttr("strides", 2, 2).toByteArray()).isEqualTo(expected);
  }

  @Test
  void intAttributeMatchesHandEncoding() {
    byte[] expected =
        bytes(
            0x0A, 0x05, 'g', 'r', 'o', 'u', 'p', // name = 1
            0x18, 0x80, 0x02, // i = 3: 256
            0xA0, 0x01, 0x02); // type = 20: INT
    assertThat(OnnxModel.intAttr("group", 256).toByteArray()).isEqualTo(expected);
  }

  @Test
  void floatTensorMatchesHandEncoding() {
    byte[] expected =
        bytes(
            0x08, 0x02, // dims = 1: [2]
            0x10, 0x01, // data_type = 2: FLOAT
            0x42, 0x01, 's', // name = 8
            0x4A, 0x08, // raw_data = 9, 8 bytes, little-endian floats
            0x00, 0x00, 0x80, 0x3F, // 1.0f
            0x00, 0x00, 0x00, 0xC0); // -2.0f
    assertThat(OnnxModel.floatTensor("s", new long[] {2}, new float[] {1f, -2f}).toByteArray())
        .isEqualTo(expected);
  }

  @Test
  void nestedMessagesAreLengthPrefixed() {
    ProtoWriter dim = new ProtoWriter().varint(1, 3);
    byte[] expected = bytes(0x0A, 0x02, 0x08, 0x03, 0x0A, 0x02, 0x08, 0x03);
    assertThat(new ProtoWriter().message(1, dim).message(1, dim).toByteArray()).isEqualTo(expected);
  }

  @Test
  void valueInfoMatchesHandEncoding() {
    byte[] expected =
        bytes(
            0x0A, 0x01, 'x', // ValueInfoProto.name = 1
            0x12, 0x0A, // type = 2 (TypeProto, 10 bytes)
            0x0A, 0x08, // tensor_type = 1 (8 bytes)
            0x08, 0x01, // elem_type = 1: FLOAT
            0x12, 0x04, // shape = 2 (4 bytes)
            0x0A, 0x02, 0x08, 0x05); // dim = 1 { dim_value = 1: 5 }
    assertThat(OnnxModel.valueInfo("x", new long[] {5}).toByteArray()).isEqualTo(expected);
  }
}
