package org.jverity.io;

import java.io.EOFException;
import java.nio.ByteBuffer;
import java.util.Arrays;

/**
 * A device held in a byte array, for tests and small images. Writes past the end grow it. Thread-
 * safe: every access holds the instance lock. Growth doubles the backing array, so a tree written
 * block by block costs linear time, not quadratic.
 */
public final class MemoryDevice implements WritableDevice {
  private final String description;
  private byte[] bytes; // capacity; bytes past length are zero
  private int length; // bytes

  public MemoryDevice(String description, byte[] initial) {
    this.description = description;
    this.bytes = initial.clone();
    this.length = initial.length;
  }

  public MemoryDevice(String description) {
    this(description, new byte[0]);
  }

  /** A copy of the current contents. */
  public synchronized byte[] toByteArray() {
    return Arrays.copyOf(bytes, length);
  }

  @Override
  public String description() {
    return description;
  }

  @Override
  public synchronized long size() {
    return length;
  }

  @Override
  public synchronized void readFully(long offset, ByteBuffer dst) throws EOFException {
    if (offset < 0 || offset > length - dst.remaining()) { // no overflow near Long.MAX_VALUE
      throw new EOFException(
          description
              + ": read of "
              + dst.remaining()
              + " bytes at "
              + offset
              + " past the end ("
              + length
              + ")");
    }
    dst.put(bytes, (int) offset, dst.remaining()); // offset < length <= int range
  }

  @Override
  public synchronized void writeFully(long offset, ByteBuffer src) {
    long end = offset + src.remaining();
    if (end > Integer.MAX_VALUE - 8) {
      throw new IllegalArgumentException(description + ": memory device cannot grow to " + end);
    }
    if (end > bytes.length) {
      bytes =
          Arrays.copyOf(
              bytes, (int) Math.min(Integer.MAX_VALUE - 8, Math.max(end, 2L * bytes.length)));
    }
    src.get(bytes, (int) offset, src.remaining());
    length = (int) Math.max(length, end);
  }

  @Override
  public void flush() {}

  @Override
  public void close() {}
}
