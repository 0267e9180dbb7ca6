package org.jverity.image;

import org.jverity.fec.FecRepairer;
import org.jverity.io.BlockDevice;

/**
 * An opened {@link FecSource}: its repairer, and the parity device it opened (none when the parity
 * is on the hash device, which its opener owns). Closing it closes that device.
 */
public final class FecParity implements AutoCloseable {
  private final FecRepairer repairer;
  private final BlockDevice own;

  FecParity(FecRepairer repairer, BlockDevice own) {
    this.repairer = repairer;
    this.own = own;
  }

  public FecRepairer repairer() {
    return repairer;
  }

  /** Closes the parity device it opened: read-only, so a failure loses nothing. */
  @Override
  public void close() {
    Closing.quietly(own);
  }
}
