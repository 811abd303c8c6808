package dev.kernelgen.eval;

import dev.kernelgen.diag.CompilerBug;
import dev.kernelgen.te.DType;
import java.lang.foreign.ValueLayout;

/**
 * The loop IR interpreter's buffer accesses: a load or store node per element type, reading the
 * buffer from its frame slot, with every index checked against the buffer's size (an access outside
 * is a {@link CompilerBug} naming the buffer and the index).
 */
final class BufferAccess {
  private BufferAccess() {}

  static LongNode loadInt(DType dtype, int slot, LinearIndex idx) {
    return switch (dtype) {
      case INT32 ->
          new LongNode() {
            @Override
            long eval(Frame f) {
              Mem m = f.mems[slot];
              return m.segment().getAtIndex(ValueLayout.JAVA_INT, loadIndex(m, idx.eval(f)));
            }
          };
      case INT64 ->
          new LongNode() {
            @Override
            long eval(Frame f) {
              Mem m = f.mems[slot];
              return m.segment().getAtIndex(ValueLayout.JAVA_LONG, loadIndex(m, idx.eval(f)));
            }
          };
      case BOOL ->
          new LongNode() {
            @Override
            long eval(Frame f) {
              Mem m = f.mems[slot];
              return m.segment().get(ValueLayout.JAVA_BYTE, loadIndex(m, idx.eval(f))) != 0 ? 1 : 0;
            }
          };
      default -> throw new CompilerBug("integer load of " + dtype);
    };
  }

  static DoubleNode loadFloat(DType dtype, int slot, LinearIndex idx) {
    return dtype == DType.FLOAT32
        ? new DoubleNode() {
          @Override
          double eval(Frame f) {
            Mem m = f.mems[slot];
            return m.segment().getAtIndex(ValueLayout.JAVA_FLOAT, loadIndex(m, idx.eval(f)));
          }
        }
        : new DoubleNode() {
          @Override
          double eval(Frame f) {
            Mem m = f.mems[slot];
            return m.segment().getAtIndex(ValueLayout.JAVA_DOUBLE, loadIndex(m, idx.eval(f)));
          }
        };
  }

  static StmtNode storeFloat(DType dtype, int slot, LinearIndex idx, DoubleNode v) {
    return dtype == DType.FLOAT32
        ? new StmtNode() {
          @Override
          void exec(Frame f) {
            Mem m = f.mems[slot];
            long i = storeIndex(m, idx.eval(f));
            m.segment().setAtIndex(ValueLayout.JAVA_FLOAT, i, (float) v.eval(f));
          }
        }
        : new StmtNode() {
          @Override
          void exec(Frame f) {
            Mem m = f.mems[slot];
            long i = storeIndex(m, idx.eval(f));
            m.segment().setAtIndex(ValueLayout.JAVA_DOUBLE, i, v.eval(f));
          }
        };
  }

  static StmtNode storeInt(DType dtype, int slot, LinearIndex idx, LongNode v) {
    return switch (dtype) {
      case INT32 ->
          new StmtNode() {
            @Override
            void exec(Frame f) {
              Mem m = f.mems[slot];
              long i = storeIndex(m, idx.eval(f));
              m.segment().setAtIndex(ValueLayout.JAVA_INT, i, (int) v.eval(f));
            }
          };
      case INT64 ->
          new StmtNode() {
            @Override
            void exec(Frame f) {
              Mem m = f.mems[slot];
              long i = storeIndex(m, idx.eval(f));
              m.segment().setAtIndex(ValueLayout.JAVA_LONG, i, v.eval(f));
            }
          };
      default ->
          new StmtNode() {
            @Override
            void exec(Frame f) {
              Mem m = f.mems[slot];
              long i = storeIndex(m, idx.eval(f));
              m.segment().set(ValueLayout.JAVA_BYTE, i, (byte) (v.eval(f) != 0 ? 1 : 0));
            }
          };
    };
  }

  static long checkSize(String buffer, long size) {
    CompilerBug.check(size >= 0, "allocation of '%s' with negative size %d", buffer, size);
    return size;
  }

  static long loadIndex(Mem m, long i) {
    if (i < 0 || i >= m.size()) {
      throw new CompilerBug(
          "load from '" + m.name() + "' at index " + i + ", outside [0, " + m.size() + ")");
    }
    return i;
  }

  static long storeIndex(Mem m, long i) {
    if (i < 0 || i >= m.size()) {
      throw new CompilerBug(
          "store to '" + m.name() + "' at index " + i + ", outside [0, " + m.size() + ")");
    }
    return i;
  }
}
