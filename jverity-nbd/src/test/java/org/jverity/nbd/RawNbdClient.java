package org.jverity.nbd;

import java.io.BufferedInputStream;
import java.io.BufferedOutputStream;
import java.io.Closeable;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.EOFException;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketException;
import java.net.SocketTimeoutException;
import java.nio.ByteBuffer;
import java.time.Duration;

/**
 * A tiny NBD client over a raw TCP socket, for what well-behaved clients never send: requests left
 * in flight, huge writes, bad magics. It does the fixed-newstyle handshake by hand (NBD.md §1.2):
 * client flags FIXED_NEWSTYLE|NO_ZEROES, optionally STRUCTURED_REPLY, then GO on the default export
 * with no information requests. Not thread-safe: one test thread per client.
 *
 * <pre>
 * S: "NBDMAGIC" "IHAVEOPT" u16 0x0003            C: u32 0x00000003
 * C: "IHAVEOPT" u32 7 (GO) u32 6  u32 0 (name length) u16 0 (info requests)
 * S: u64 0x3e889045565a9 u32 7 u32 3 (INFO) u32 12  u16 0 u64 size u16 flags   ... u32 1 (ACK)
 * </pre>
 */
final class RawNbdClient implements Closeable {
  static final int READ = 0;
  static final int WRITE = 1;
  static final int DISC = 2;

  private final Socket socket;
  private final DataInputStream in;
  private final DataOutputStream out;

  /** The export's size in bytes, from NBD_INFO_EXPORT. */
  final long size;

  /** The transmission flags, from NBD_INFO_EXPORT. */
  final int flags;

  private RawNbdClient(
      Socket socket, DataInputStream in, DataOutputStream out, long size, int flags) {
    this.socket = socket;
    this.in = in;
    this.out = out;
    this.size = size;
    this.flags = flags;
  }

  /**
   * Connects and completes the handshake; replies then come as simple replies unless {@code
   * structured}.
   */
  static RawNbdClient connect(InetSocketAddress server, boolean structured) throws IOException {
    Socket s = new Socket();
    try {
      s.connect(server, 5_000);
      s.setSoTimeout(10_000); // a server that never answers fails the test, it does not hang it
      s.setTcpNoDelay(true);
      var in = new DataInputStream(new BufferedInputStream(s.getInputStream()));
      var out = new DataOutputStream(new BufferedOutputStream(s.getOutputStream()));
      expect("NBDMAGIC", Nbd.NBDMAGIC, in.readLong());
      expect("IHAVEOPT", Nbd.IHAVEOPT, in.readLong());
      expect(
          "handshake flags", Nbd.FLAG_FIXED_NEWSTYLE | Nbd.FLAG_NO_ZEROES, in.readUnsignedShort());
      out.writeInt(Nbd.FLAG_FIXED_NEWSTYLE | Nbd.FLAG_NO_ZEROES);
      if (structured) {
        option(out, NbdOption.STRUCTURED_REPLY.wire, new byte[0]);
        expect(
            "STRUCTURED_REPLY reply",
            Nbd.REP_ACK,
            readOptionReply(in, NbdOption.STRUCTURED_REPLY.wire).type);
      }
      option(out, NbdOption.GO.wire, ByteBuffer.allocate(6).putInt(0).putShort((short) 0).array());
      long size = -1;
      int flags = -1;
      for (OptionReply r; (r = readOptionReply(in, NbdOption.GO.wire)).type != Nbd.REP_ACK; ) {
        if (r.type != Nbd.REP_INFO) {
          throw new IOException("GO answered with reply type 0x" + Integer.toHexString(r.type));
        }
        ByteBuffer b = ByteBuffer.wrap(r.data);
        if (b.getShort() == Nbd.INFO_EXPORT) {
          size = b.getLong();
          flags = b.getShort() & 0xffff;
        }
      }
      if (size < 0) {
        throw new IOException("GO ended without NBD_INFO_EXPORT");
      }
      return new RawNbdClient(s, in, out, size, flags);
    } catch (IOException | RuntimeException e) {
      s.close();
      throw e;
    }
  }

  private record OptionReply(int type, byte[] data) {}

  private static void option(DataOutputStream out, int option, byte[] data) throws IOException {
    out.writeLong(Nbd.IHAVEOPT);
    out.writeInt(option);
    out.writeInt(data.length);
    out.write(data);
    out.flush();
  }

  private static OptionReply readOptionReply(DataInputStream in, int option) throws IOException {
    expect("option reply magic", Nbd.OPTION_REPLY_MAGIC, in.readLong());
    expect("option echoed", option, in.readInt());
    int type = in.readInt();
    byte[] data = new byte[in.readInt()];
    in.readFully(data);
    return new OptionReply(type, data);
  }

  private static void expect(String what, long want, long got) throws IOException {
    if (want != got) {
      throw new IOException(
          what + ": 0x" + Long.toHexString(got) + " (expected: 0x" + Long.toHexString(want) + ")");
    }
  }

  /** Sends one request header with {@code magic} (normally {@link Nbd#REQUEST_MAGIC}); flushed. */
  void request(int magic, int flags, int type, long cookie, long offset, int length)
      throws IOException {
    out.writeInt(magic);
    out.writeShort(flags);
    out.writeShort(type);
    out.writeLong(cookie);
    out.writeLong(offset);
    out.writeInt(length);
    out.flush();
  }

  void request(int type, long cookie, long offset, int length) throws IOException {
    request(Nbd.REQUEST_MAGIC, 0, type, cookie, offset, length);
  }

  /** As {@link #request(int, long, long, int)}, not flushed: requests pipelined in one write. */
  void queue(int type, long cookie, long offset, int length) throws IOException {
    out.writeInt(Nbd.REQUEST_MAGIC);
    out.writeShort(0);
    out.writeShort(type);
    out.writeLong(cookie);
    out.writeLong(offset);
    out.writeInt(length);
  }

  /** Sends the requests queued. */
  void flush() throws IOException {
    out.flush();
  }

  /** Reads a reply's data. */
  void readFully(byte[] data) throws IOException {
    in.readFully(data);
  }

  /** Sends raw bytes (a WRITE payload); flushed. */
  void send(byte[] bytes) throws IOException {
    out.write(bytes);
    out.flush();
  }

  /** A simple reply's header: the error (0 for none) and cookie. */
  record Simple(int error, long cookie) {}

  /** Reads a simple reply's header; a READ's data follows it when the error is 0. */
  Simple readSimple() throws IOException {
    expect("simple reply magic", Nbd.SIMPLE_REPLY_MAGIC, in.readInt());
    return new Simple(in.readInt(), in.readLong());
  }

  /** READ with simple replies: the bytes, or an IOException naming the error. */
  byte[] read(long offset, int length) throws IOException {
    long cookie = System.nanoTime();
    request(READ, cookie, offset, length);
    Simple r = readSimple();
    expect("cookie", cookie, r.cookie());
    if (r.error() != 0) {
      throw new IOException("read of " + length + " at " + offset + ": error " + r.error());
    }
    byte[] data = new byte[length];
    in.readFully(data);
    return data;
  }

  /**
   * Whether the server closes this connection within {@code within}, reading and dropping whatever
   * it still sends. A reset counts as closed.
   */
  boolean closedByServer(Duration within) throws IOException {
    long until = System.nanoTime() + within.toNanos();
    byte[] sink = new byte[64 << 10];
    while (System.nanoTime() < until) {
      socket.setSoTimeout((int) Math.max(1, (until - System.nanoTime()) / 1_000_000));
      try {
        if (in.read(sink) < 0) {
          return true;
        }
      } catch (EOFException | SocketException e) {
        return true; // "Connection reset": the server closed with our bytes unread
      } catch (SocketTimeoutException e) {
        return false;
      }
    }
    return false;
  }

  /** Closes at once, with a reset instead of a FIN when {@code reset} (SO_LINGER 0). */
  void abort(boolean reset) throws IOException {
    if (reset) {
      socket.setSoLinger(true, 0);
    }
    socket.close();
  }

  @Override
  public void close() throws IOException {
    socket.close();
  }
}
