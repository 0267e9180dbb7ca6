package org.jverity.io;

import java.io.IOException;
import java.nio.ByteBuffer;

/**
 * A device that forwards every call to another ({@link #delegate()}), for subclasses that change
 * one behaviour: count, watch or delay reads, or open the device late. Lucene's {@code
 * FilterIndexInput} in shape. What it forwards: the size, reads and rereads into a buffer, prefetch
 * hints (a failure to reach the delegate is no hint's concern) and close. Reads into an array are
 * the interface's defaults, which come back to this device's buffer reads, so a subclass that
 * changes {@link #readFully(long, ByteBuffer)} changes every read; one that also wants the
 * delegate's own array path (a file's, with no wrapping) forwards it itself. The name is the
 * subclass's to give. Thread-safe if the delegate is and the subclass keeps it so.
 */
public abstract class FilterBlockDevice implements BlockDevice {
  protected FilterBlockDevice() {}

  /** The device calls go to; may wait (one that is still opening) or throw what its open threw. */
  protected abstract BlockDevice delegate() throws IOException;

  @Override
  public long size() throws IOException {
    return delegate().size();
  }

  @Override
  public void readFully(long offset, ByteBuffer dst) throws IOException {
    delegate().readFully(offset, dst);
  }

  @Override
  public void reread(long offset, ByteBuffer dst) throws IOException {
    delegate().reread(offset, dst);
  }

  @Override
  public void prefetch(long offset, long length) {
    try {
      delegate().prefetch(offset, length);
    } catch (IOException | RuntimeException e) {
      // a hint: the read that follows meets the same failure and reports it
    }
  }

  @Override
  public void close() throws IOException {
    delegate().close();
  }
}
