package org.jverity.io;

import java.io.IOException;

/**
 * A device shorter than the parameters need: a data file smaller than its data blocks, a truncated
 * hash file.
 */
public final class DeviceTooSmallException extends IOException {
  private final long size;
  private final long needed;

  public DeviceTooSmallException(String what, String device, long size, long needed) {
    super(device + ": " + what + " has " + size + " bytes, needs " + needed);
    this.size = size;
    this.needed = needed;
  }

  /** Bytes the device has. */
  public long size() {
    return size;
  }

  /** Bytes it would need. */
  public long needed() {
    return needed;
  }
}
