package org.jverity.cli;

import java.io.EOFException;
import java.io.IOException;
import java.net.UnixDomainSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;

/**
 * The smallest NBD client the AOT training can read a served export with: fixed newstyle, one
 * {@code NBD_OPT_GO} for an export name, then {@code NBD_CMD_READ} requests one at a time with
 * simple replies, over a Unix socket. It exists so that the server's cache holds the classes and
 * profiles of the serving path (handshake, request decoding, verified reads, replies) without a
 * real client; it is no general client (no TLS, no structured replies, no pipelining).
 */
final class TrainingNbdClient implements AutoCloseable {
  private static final long IHAVEOPT = 0x49484156454F5054L;
  private static final long OPTION_REPLY_MAGIC = 0x0003e889045565a9L;
  private static final int FLAGS_FIXED_NEWSTYLE_NO_ZEROES = 3;
  private static final int OPT_GO = 7;
  private static final int REP_ACK = 1;
  private static final int REP_INFO = 3;
  private static final int INFO_EXPORT = 0;
  private static final int REQUEST_MAGIC = 0x25609513;
  private static final int SIMPLE_REPLY_MAGIC = 0x67446698;
  private static final int CMD_READ = 0;
  private static final int CMD_DISC = 2;

  private final SocketChannel channel;
  private final long size;
  private long cookie;

  /** Connects to {@code socket} and negotiates export {@code name}. */
  TrainingNbdClient(Path socket, String name) throws IOException {
    channel = SocketChannel.open(UnixDomainSocketAddress.of(socket));
    try {
      ByteBuffer greeting = readFully(18);
      if (greeting.getLong() != 0x4e42444d41474943L || greeting.getLong() != IHAVEOPT) {
        throw new IOException("training: not an NBD newstyle server");
      }
      byte[] n = name.getBytes(StandardCharsets.UTF_8);
      ByteBuffer go = ByteBuffer.allocate(4 + 16 + 4 + n.length + 2);
      go.putInt(FLAGS_FIXED_NEWSTYLE_NO_ZEROES).putLong(IHAVEOPT).putInt(OPT_GO);
      go.putInt(4 + n.length + 2).putInt(n.length).put(n).putShort((short) 0);
      write(go.flip());
      long exportSize = -1;
      for (; ; ) {
        ByteBuffer h = readFully(20);
        if (h.getLong() != OPTION_REPLY_MAGIC) {
          throw new IOException("training: bad option reply magic");
        }
        h.getInt(); // the option
        int type = h.getInt();
        ByteBuffer data = readFully(h.getInt());
        if (type == REP_ACK) {
          break;
        }
        if (type == REP_INFO && data.remaining() >= 10 && data.getShort() == INFO_EXPORT) {
          exportSize = data.getLong();
        } else if (type < 0) {
          throw new IOException("training: NBD_OPT_GO refused (reply type " + type + ")");
        }
      }
      if (exportSize < 0) {
        throw new IOException("training: no NBD_INFO_EXPORT before the ACK");
      }
      size = exportSize;
    } catch (IOException | RuntimeException e) {
      channel.close();
      throw e;
    }
  }

  long size() {
    return size;
  }

  /** Reads {@code into.remaining()} bytes at {@code offset} into {@code into}. */
  void read(long offset, ByteBuffer into) throws IOException {
    ByteBuffer req = ByteBuffer.allocate(28);
    req.putInt(REQUEST_MAGIC).putShort((short) 0).putShort((short) CMD_READ);
    req.putLong(++cookie).putLong(offset).putInt(into.remaining());
    write(req.flip());
    ByteBuffer reply = readFully(16);
    if (reply.getInt() != SIMPLE_REPLY_MAGIC) {
      throw new IOException("training: bad reply magic");
    }
    int error = reply.getInt();
    if (reply.getLong() != cookie) {
      throw new IOException("training: reply for another request");
    }
    if (error != 0) {
      throw new IOException("training: read at " + offset + " failed, NBD error " + error);
    }
    while (into.hasRemaining()) {
      if (channel.read(into) < 0) {
        throw new EOFException("training: the server closed the connection");
      }
    }
  }

  private ByteBuffer readFully(int n) throws IOException {
    ByteBuffer b = ByteBuffer.allocate(n);
    while (b.hasRemaining()) {
      if (channel.read(b) < 0) {
        throw new EOFException("training: the server closed the connection");
      }
    }
    return b.flip();
  }

  private void write(ByteBuffer b) throws IOException {
    while (b.hasRemaining()) {
      channel.write(b);
    }
  }

  /** Sends NBD_CMD_DISC and closes. */
  @Override
  public void close() throws IOException {
    try (channel) {
      ByteBuffer disc = ByteBuffer.allocate(28);
      disc.putInt(REQUEST_MAGIC).putShort((short) 0).putShort((short) CMD_DISC);
      disc.putLong(++cookie).putLong(0).putInt(0);
      write(disc.flip());
    }
  }
}
