package org.jverity.verify;

/** I/O priority classes, as Linux's ioprio classes; each has its own inline-verification limit. */
public enum IoClass {
  NONE,
  REAL_TIME,
  BEST_EFFORT,
  IDLE;

  /**
   * dm-verity's {@code use_bh_bytes} defaults: 8 KiB inline for all classes but idle, 0 for idle.
   */
  long defaultInlineLimit() {
    return this == IDLE ? 0 : 8192;
  }
}
