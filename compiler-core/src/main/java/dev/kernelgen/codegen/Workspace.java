package dev.kernelgen.codegen;

/**
 * The C kernels' heap temporaries. {@code kg_alloc} allocates 64-byte-aligned memory and reports a
 * failure through the kernel's status. {@code kg_workspace} keeps each temporary of a module (its
 * slot) per thread between calls, so that a kernel does not allocate, fault in and free its
 * temporaries on every call: one head of attention over 256 positions, with two 256 KB temporaries,
 * ran 240 us in a C process where glibc returned them to the system after each call (its page
 * faults) and 114 us in the JVM, against 103 us with the memory kept.
 *
 * <p>A thread's workspace is freed when the thread exits ({@code __cxa_thread_atexit_impl}, glibc
 * 2.18, as C++'s {@code thread_local} destructors: it also keeps the library loaded until then).
 * Temporaries above 64 MB, and any allocation that fails in the bookkeeping, are allocated and
 * freed per call as before ({@code owned}). Nothing here needs a glibc symbol newer than 2.18.
 */
final class Workspace {
  private Workspace() {}

  static final String ALLOC =
      """
      static void* kg_alloc(size_t bytes, int64_t* status) {
        // aligned_alloc wants a multiple of the alignment. On failure the status
        // says how much was asked for, and the caller skips what needed it.
        void* p = bytes > SIZE_MAX - 63
            ? NULL
            : aligned_alloc(64, bytes == 0 ? 64 : (bytes + 63) / 64 * 64);
      #ifdef KG_TEST_ALLOC_LIMIT
        // Tests make allocations above this many bytes fail.
        if (p != NULL && bytes > KG_TEST_ALLOC_LIMIT) {
          free(p);
          p = NULL;
        }
      #endif
        if (p == NULL) {
          __atomic_store_n(status, bytes == 0 ? 1 : (int64_t)bytes, __ATOMIC_RELAXED);
        }
        return p;
      }
      """;

  static final String HELPER =
      """
      typedef struct kg_ws {
        size_t n;
        void** p;
        size_t* cap;
      } kg_ws;
      static _Thread_local kg_ws* kg_ws_mine;
      extern int __cxa_thread_atexit_impl(void (*)(void*), void*, void*);
      extern void* __dso_handle __attribute__((weak));
      static void kg_ws_release(void* w) {
        kg_ws* ws = (kg_ws*)w;
        for (size_t i = 0; i < ws->n; i++) {
          free(ws->p[i]);
        }
        free(ws->p);
        free(ws->cap);
        free(ws);
      }
      // Temporary `slot` of the module for this thread, at least `bytes` long. *owned says whether
      // the caller frees it (a temporary not kept); NULL, with the status set, when out of memory.
      static void* kg_workspace(size_t slot, size_t bytes, int* owned, int64_t* status) {
        *owned = 1;
        if (bytes > ((size_t)64 << 20)) {
          return kg_alloc(bytes, status);
        }
        kg_ws* ws = kg_ws_mine;
        if (ws == NULL) {
          ws = (kg_ws*)calloc(1, sizeof(kg_ws));
          if (ws == NULL || __cxa_thread_atexit_impl(kg_ws_release, ws, &__dso_handle) != 0) {
            free(ws);
            return kg_alloc(bytes, status);
          }
          kg_ws_mine = ws;
        }
        if (slot >= ws->n) {
          void** p = (void**)realloc(ws->p, (slot + 1) * sizeof(void*));
          if (p == NULL) {
            return kg_alloc(bytes, status);
          }
          ws->p = p;
          size_t* cap = (size_t*)realloc(ws->cap, (slot + 1) * sizeof(size_t));
          if (cap == NULL) {
            return kg_alloc(bytes, status);
          }
          ws->cap = cap;
          for (size_t i = ws->n; i <= slot; i++) {
            ws->p[i] = NULL;
            ws->cap[i] = 0;
          }
          ws->n = slot + 1;
        }
        if (ws->cap[slot] < bytes) {
          void* q = kg_alloc(bytes, status);
          if (q == NULL) {
            return NULL;
          }
          free(ws->p[slot]);
          ws->p[slot] = q;
          ws->cap[slot] = bytes;
        }
        *owned = 0;
        return ws->p[slot];
      }
      """;
}
