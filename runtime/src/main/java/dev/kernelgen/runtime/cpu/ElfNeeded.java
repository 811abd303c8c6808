package dev.kernelgen.runtime.cpu;

import java.lang.foreign.Arena;
import java.lang.foreign.SymbolLookup;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/**
 * The shared libraries an ELF shared object needs ({@code DT_NEEDED} of its dynamic section), read
 * from its bytes: to say which one a machine lacks when the loader refuses a kernel library (the
 * JDK's message does not).
 */
final class ElfNeeded {
  private static final int SHT_DYNAMIC = 6;
  private static final long DT_NEEDED = 1;

  private ElfNeeded() {}

  /** The needed libraries of a 64-bit little-endian ELF file; empty for anything else. */
  static List<String> of(byte[] elf) {
    List<String> out = new ArrayList<>();
    try {
      ByteBuffer b = ByteBuffer.wrap(elf).order(ByteOrder.LITTLE_ENDIAN);
      if (elf.length < 64 || b.getInt(0) != 0x464c457f || elf[4] != 2 || elf[5] != 1) {
        return out; // not ELF, not 64-bit, or not little-endian
      }
      long shoff = b.getLong(0x28);
      int shentsize = Short.toUnsignedInt(b.getShort(0x3a));
      int shnum = Short.toUnsignedInt(b.getShort(0x3c));
      for (int i = 0; i < shnum; i++) {
        int sh = Math.toIntExact(shoff + (long) i * shentsize);
        if (b.getInt(sh + 4) != SHT_DYNAMIC) {
          continue;
        }
        int link = b.getInt(sh + 0x28);
        int strtab =
            Math.toIntExact(b.getLong(Math.toIntExact(shoff + (long) link * shentsize) + 0x18));
        int off = Math.toIntExact(b.getLong(sh + 0x18));
        int size = Math.toIntExact(b.getLong(sh + 0x20));
        for (int e = off; e + 16 <= off + size; e += 16) {
          long tag = b.getLong(e);
          if (tag == 0) {
            break;
          }
          if (tag == DT_NEEDED) {
            int s = strtab + Math.toIntExact(b.getLong(e + 8));
            int end = s;
            while (elf[end] != 0) {
              end++;
            }
            out.add(new String(elf, s, end - s, StandardCharsets.UTF_8));
          }
        }
      }
    } catch (RuntimeException e) {
      return out; // a damaged file: what was read so far
    }
    return out;
  }

  /**
   * Why the loader may have refused a library: the libraries it needs that this machine cannot load
   * (libgomp, say), else a hint at symbol versions.
   */
  static String missingDependencies(byte[] library) {
    List<String> missing = new ArrayList<>();
    for (String needed : ElfNeeded.of(library)) {
      try {
        SymbolLookup.libraryLookup(needed, Arena.global());
      } catch (IllegalArgumentException e) {
        missing.add(needed);
      }
    }
    if (!missing.isEmpty()) {
      return "; it needs "
          + String.join(", ", missing)
          + ", which this machine does not have (libgomp.so.1: install the OpenMP runtime, e.g."
          + " the libgomp1 package)";
    }
    return "; its dependencies are present, so a symbol or its version is missing (a C library"
        + " older than the build's?)";
  }
}
