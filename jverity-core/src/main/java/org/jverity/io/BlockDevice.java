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

  /**
   * Reads as {@link #readFully(long, ByteBuffer)} does, but from the device itself, past any copy
   * the device keeps of its own: the read path's recheck of a block that did not verify. A remote
   * device fetches it again from the origin (and replaces its cached copy); a local one has nothing
   * in between, so the default is a plain read.
   */
  default void reread(long offset, ByteBuffer dst) throws IOException {
    readFully(offset, dst);
  }

  /** As {@link #reread(long, ByteBuffer)} into {@code dst[dstOffset...]}. */
  default void reread(long offset, byte[] dst, int dstOffset, int length) throws IOException {
    reread(offset, ByteBuffer.wrap(dst, dstOffset, length));
  }

  /**
   * A hint that {@code length} bytes at {@code offset} will be read soon: a device with a slow
   * origin starts fetching them without waiting, so they arrive while other reads are in flight (a
   * data block and its hash blocks fetched in parallel). Never blocks, never fails; a local device
   * ignores it.
   */
  default void prefetch(long offset, long length) {}
}
