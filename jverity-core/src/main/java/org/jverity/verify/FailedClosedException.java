package org.jverity.verify;

import java.io.IOException;
import java.util.Locale;

/** A read refused because the reader failed closed after corruption (modes RESTART and PANIC). */
public final class FailedClosedException extends IOException {
  private final CorruptionMode mode;

  public FailedClosedException(CorruptionMode mode, CorruptBlockException cause) {
    super(
        "verity failed closed ("
            + mode.name().toLowerCase(Locale.ROOT)
            + "_on_corruption) after: "
            + cause.getMessage(),
        cause);
    this.mode = mode;
  }

  public CorruptionMode mode() {
    return mode;
  }
}
