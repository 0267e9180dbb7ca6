package org.jverity.io;

import java.io.Closeable;
import java.io.EOFException;
import java.io.IOException;
import java.nio.ByteBuffer;

/**
 * A read-only, positional, thread-safe source of bytes: a data image or a hash device. Every read
 * is absolute; there is no position to share, so any number of threads may read at once.
 */
public interface BlockDevice extends Closeable {

  /** Names the device in error messages, usually its path. */
  String description();

  /** Size in bytes. */
  long size() throws IOException;

  /**
   * Fills {@code dst} from its position to its limit with the bytes at {@code offset}.
   *
   * @throws EOFException if the device ends first; a short read is never a partial result
   */
  void readFully(long offset, ByteBuffer dst) throws IOException;

  /** Reads {@code length} bytes at {@code offset} into {@code dst[dstOffset...]}. */
  default void readFully(long offset, byte[] dst, int dstOffset, int length) throws IOException {
    readFully(offset, ByteBuffer.wrap(dst, dstOffset, length));
  }
}
