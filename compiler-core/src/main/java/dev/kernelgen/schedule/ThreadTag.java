package dev.kernelgen.schedule;

import dev.kernelgen.diag.UserError;
import java.util.List;

/** The GPU thread indices a loop can be bound to. */
public final class ThreadTag {
  private ThreadTag() {}

  public static final String BLOCK_X = "blockIdx.x";
  public static final String BLOCK_Y = "blockIdx.y";
  public static final String BLOCK_Z = "blockIdx.z";
  public static final String THREAD_X = "threadIdx.x";
  public static final String THREAD_Y = "threadIdx.y";
  public static final String THREAD_Z = "threadIdx.z";
  public static final String VTHREAD = "vthread";

  /** The threads of a warp, which run in lockstep and share {@code __syncwarp}. */
  public static final int WARP = 32;

  public static final List<String> ALL =
      List.of(BLOCK_X, BLOCK_Y, BLOCK_Z, THREAD_X, THREAD_Y, THREAD_Z, VTHREAD);

  public static void check(String tag) {
    UserError.check(ALL.contains(tag), "unknown thread tag '%s' (known: %s)", tag, ALL);
  }

  public static boolean isBlock(String tag) {
    return tag.startsWith("blockIdx.");
  }

  public static boolean isThread(String tag) {
    return tag.startsWith("threadIdx.");
  }
}
