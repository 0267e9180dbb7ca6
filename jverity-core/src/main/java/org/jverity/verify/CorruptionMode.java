package org.jverity.verify;

/** What a verified read does when a block does not verify: dm-verity's modes. */
public enum CorruptionMode {
  /** The request fails with {@link CorruptBlockException}; other requests go on (the default). */
  EIO,
  /**
   * Log and count the corruption, and return the data anyway (dm-verity {@code ignore_corruption}).
   */
  IGNORE,
  /**
   * Fail closed: this and every later read fails, and the owner is told so that it can restart
   * (dm-verity {@code restart_on_corruption}).
   */
  RESTART,
  /**
   * Fail closed like {@link #RESTART}; the owner should stop at once (dm-verity {@code
   * panic_on_corruption}).
   */
  PANIC;

  /** Whether the first corruption stops every later read. */
  public boolean failsClosed() {
    return this == RESTART || this == PANIC;
  }
}
