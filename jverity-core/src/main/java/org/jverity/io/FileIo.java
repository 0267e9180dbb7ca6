package org.jverity.io;

import java.io.IOException;
import java.nio.ByteBuffer;

/**
 * One open file's positional calls, one system call each: no loops and no closed checks ({@link
 * FileDevice} adds those). Implementations are thread-safe.
 */
interface FileIo {

  /** Reads up to {@code dst.remaining()} bytes at byte {@code offset}, advancing dst; 0 at EOF. */
  int read(long offset, ByteBuffer dst) throws IOException;

  /** Writes up to {@code src.remaining()} bytes at byte {@code offset}, advancing src. */
  int write(long offset, ByteBuffer src) throws IOException;

  /** Size in bytes (of a block device too). */
  long size() throws IOException;

  /** Makes completed writes durable. */
  void sync() throws IOException;

  /** Frees the descriptor; called once, with no call in flight. */
  void close() throws IOException;
}
