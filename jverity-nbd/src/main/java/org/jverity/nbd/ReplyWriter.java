package org.jverity.nbd;

import java.io.DataOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.concurrent.locks.ReentrantLock;

/**
 * Writes replies to one connection: the only writer of its socket. Each reply (or structured chunk)
 * is written whole under a lock and flushed, so replies of requests running at once never
 * interleave inside a message; chunks of different requests may alternate, which the protocol
 * allows. Thread-safe.
 */
final class ReplyWriter {
  private final DataOutputStream out;
  private final ReentrantLock lock =
      new ReentrantLock(); // not synchronized: virtual threads park cleanly

  ReplyWriter(OutputStream out) {
    this.out = new DataOutputStream(out);
  }

  /** A simple reply, with {@code data[off, off+len)} after it when there is no error. */
  void simple(long cookie, NbdError error, byte[] data, int off, int len) throws IOException {
    lock.lock();
    try {
      out.writeInt(Nbd.SIMPLE_REPLY_MAGIC);
      out.writeInt(error == null ? 0 : error.wire);
      out.writeLong(cookie);
      if (error == null && len > 0) {
        out.write(data, off, len);
      }
      out.flush();
    } finally {
      lock.unlock();
    }
  }

  void simple(long cookie, NbdError error) throws IOException {
    simple(cookie, error, null, 0, 0);
  }

  /** Bytes before the data in a simple reply: what {@link #simpleInPlace} fills in. */
  static final int SIMPLE_HEADER = 16;

  /**
   * Bytes before the data in an OFFSET_DATA chunk (header and offset): what {@link
   * #offsetDataInPlace} fills in.
   */
  static final int DATA_CHUNK_HEADER = 28;

  /**
   * A successful simple reply whose {@code len} data bytes already sit at {@code buf[SIMPLE_HEADER,
   * SIMPLE_HEADER+len)}: the header is written in front of them and the whole reply leaves in one
   * write (one TCP segment train, no copy into the stream's buffer).
   */
  void simpleInPlace(long cookie, byte[] buf, int len) throws IOException {
    ByteBuffer.wrap(buf, 0, SIMPLE_HEADER).putInt(Nbd.SIMPLE_REPLY_MAGIC).putInt(0).putLong(cookie);
    writeWhole(buf, SIMPLE_HEADER + len);
  }

  /**
   * An OFFSET_DATA chunk whose {@code len} data bytes already sit at {@code buf[DATA_CHUNK_HEADER,
   * DATA_CHUNK_HEADER+len)}, written in one go as {@link #simpleInPlace} is.
   */
  void offsetDataInPlace(long cookie, boolean done, long offset, byte[] buf, int len)
      throws IOException {
    ByteBuffer.wrap(buf, 0, DATA_CHUNK_HEADER)
        .putInt(Nbd.STRUCTURED_REPLY_MAGIC)
        .putShort((short) (done ? Nbd.REPLY_FLAG_DONE : 0))
        .putShort((short) Nbd.REPLY_TYPE_OFFSET_DATA)
        .putLong(cookie)
        .putInt(8 + len)
        .putLong(offset);
    writeWhole(buf, DATA_CHUNK_HEADER + len);
  }

  private void writeWhole(byte[] buf, int len) throws IOException {
    lock.lock();
    try {
      out.write(buf, 0, len);
      out.flush();
    } finally {
      lock.unlock();
    }
  }

  /** An OFFSET_DATA chunk: {@code data[off, off+len)} are the bytes at {@code offset}. */
  void offsetData(long cookie, boolean done, long offset, byte[] data, int off, int len)
      throws IOException {
    lock.lock();
    try {
      header(cookie, done, Nbd.REPLY_TYPE_OFFSET_DATA, 8 + len);
      out.writeLong(offset);
      out.write(data, off, len);
      out.flush();
    } finally {
      lock.unlock();
    }
  }

  /** The final NONE chunk of a structured reply. */
  void done(long cookie) throws IOException {
    lock.lock();
    try {
      header(cookie, true, Nbd.REPLY_TYPE_NONE, 0);
      out.flush();
    } finally {
      lock.unlock();
    }
  }

  /** An ERROR chunk, ending the reply. */
  void error(long cookie, NbdError error, String message) throws IOException {
    byte[] m = message(message);
    lock.lock();
    try {
      header(cookie, true, Nbd.REPLY_TYPE_ERROR, 6 + m.length);
      out.writeInt(error.wire);
      out.writeShort(m.length);
      out.write(m);
      out.flush();
    } finally {
      lock.unlock();
    }
  }

  /** An ERROR_OFFSET chunk naming the byte where the error is, ending the reply. */
  void errorOffset(long cookie, NbdError error, String message, long offset) throws IOException {
    byte[] m = message(message);
    lock.lock();
    try {
      header(cookie, true, Nbd.REPLY_TYPE_ERROR_OFFSET, 14 + m.length);
      out.writeInt(error.wire);
      out.writeShort(m.length);
      out.write(m);
      out.writeLong(offset);
      out.flush();
    } finally {
      lock.unlock();
    }
  }

  /** A BLOCK_STATUS chunk, ending the reply: {@code extents} holds (length, flags) pairs. */
  void blockStatus(long cookie, int contextId, int[] extents, int pairs) throws IOException {
    lock.lock();
    try {
      header(cookie, true, Nbd.REPLY_TYPE_BLOCK_STATUS, 4 + 8 * pairs);
      out.writeInt(contextId);
      for (int i = 0; i < 2 * pairs; i++) {
        out.writeInt(extents[i]);
      }
      out.flush();
    } finally {
      lock.unlock();
    }
  }

  private void header(long cookie, boolean done, int type, int length) throws IOException {
    out.writeInt(Nbd.STRUCTURED_REPLY_MAGIC);
    out.writeShort(done ? Nbd.REPLY_FLAG_DONE : 0);
    out.writeShort(type);
    out.writeLong(cookie);
    out.writeInt(length);
  }

  private static byte[] message(String s) {
    byte[] m = NbdStrings.bytes(s);
    return m.length <= Nbd.MAX_STRING ? m : Arrays.copyOf(m, Nbd.MAX_STRING);
  }
}
