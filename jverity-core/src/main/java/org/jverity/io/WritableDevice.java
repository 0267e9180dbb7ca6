package org.jverity.io;

import java.io.IOException;
import java.nio.ByteBuffer;

/**
 * A {@link BlockDevice} that can also be written at any offset; thread-safe for disjoint ranges.
 */
public interface WritableDevice extends BlockDevice {

  /**
   * Writes all of {@code src} (position to limit) at {@code offset}, growing the device if needed.
   */
  void writeFully(long offset, ByteBuffer src) throws IOException;

  /** Makes every completed write durable. */
  void flush() throws IOException;
}
