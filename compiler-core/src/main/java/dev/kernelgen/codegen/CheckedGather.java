package dev.kernelgen.codegen;

/**
 * The C kernels' check of an index computed from values read from memory (a gather through an index
 * tensor): outside the tensor it indexes, the function's status becomes -2 (the runtime throws,
 * naming the kernel) and element 0 is read instead of memory past the buffer.
 */
final class CheckedGather {
  private CheckedGather() {}

  static final String NAME = "kg_index_checked";

  static final String DEFINITION =
      "static inline int64_t kg_index_checked(int64_t i, int64_t n, int64_t* status) {\n"
          + "  if ((uint64_t) i >= (uint64_t) n) {\n"
          + "    __atomic_store_n(status, -2, __ATOMIC_RELAXED);\n"
          + "    return 0;\n"
          + "  }\n"
          + "  return i;\n"
          + "}\n";
}
