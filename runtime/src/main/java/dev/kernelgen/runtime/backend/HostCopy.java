package dev.kernelgen.runtime.backend;

import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;

/**
 * The copy loop between host memory and a device, written once: drivers take a {@link ByteBuffer},
 * which addresses at most 2 GiB, so larger copies go in pieces of {@value #CHUNK} bytes.
 */
public final class HostCopy {
  /** The bytes of one piece. */
  public static final long CHUNK = 1L << 30;

  private HostCopy() {}

  /** One piece: {@code bytes} bytes at {@code offset} of the device memory, {@code host} here. */
  @FunctionalInterface
  public interface Piece {
    void copy(long offset, long bytes, ByteBuffer host);
  }

  /** Calls {@code piece} for each piece of {@code host}, in order. */
  public static void inPieces(MemorySegment host, Piece piece) {
    inPieces(host, CHUNK, piece);
  }

  /** {@link #inPieces(MemorySegment, Piece)} with pieces of {@code chunk} bytes, for tests. */
  static void inPieces(MemorySegment host, long chunk, Piece piece) {
    for (long off = 0; off < host.byteSize(); off += chunk) {
      long n = Math.min(chunk, host.byteSize() - off);
      piece.copy(off, n, host.asSlice(off, n).asByteBuffer());
    }
  }
}
