package org.jverity.nbd;

import java.io.BufferedInputStream;
import java.io.BufferedOutputStream;
import java.io.Closeable;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.nio.channels.Channels;
import java.nio.channels.SocketChannel;
import java.time.Duration;

/**
 * One connection's byte streams: a TCP socket (which can start TLS), a Unix-domain socket channel,
 * or a pair of streams (stdin/stdout, as {@code nbdkit -s}). Input and output are buffered; the
 * connection flushes after each reply. Reads and writes block (connections run on virtual threads).
 */
abstract class Transport implements Closeable {
  // Bytes per direction and connection: requests are 28 bytes and a reply as long as this is
  // written
  // past the buffer, so more only costs memory per client.
  static final int BUFFER = 16 << 10;

  private final InputStream in;
  private final OutputStream out;
  private final String peer;

  /** Buffers {@code in} and {@code out}; {@code peer} names the client in log lines. */
  Transport(InputStream in, OutputStream out, String peer) {
    this.in = new BufferedInputStream(in, BUFFER);
    this.out = new BufferedOutputStream(out, BUFFER);
    this.peer = peer;
  }

  final InputStream in() {
    return in;
  }

  final OutputStream out() {
    return out;
  }

  /** Names the client in log lines. */
  final String peer() {
    return peer;
  }

  /** Whether this connection is already encrypted. */
  boolean isTls() {
    return false;
  }

  /** Whether {@link #startTls} can work here (TCP only). */
  boolean canStartTls() {
    return false;
  }

  /** The transport after a server-side TLS handshake; this one must not be used any more. */
  Transport startTls(NbdTls tls) throws IOException {
    throw new IOException("TLS is not available on " + peer());
  }

  /** Limits how long a read may wait; zero for no limit. Only sockets can. */
  void idleTimeout(Duration d) throws IOException {}

  /** Over a TCP (or TLS) socket. */
  static final class OverSocket extends Transport {
    private final Socket socket;
    private final boolean tls;

    OverSocket(Socket socket, boolean tls) throws IOException {
      super(
          socket.getInputStream(),
          socket.getOutputStream(),
          socket.getRemoteSocketAddress() + (tls ? " (tls)" : ""));
      this.socket = socket;
      this.tls = tls;
      socket.setTcpNoDelay(true); // replies are flushed whole; do not wait for more
    }

    @Override
    boolean isTls() {
      return tls;
    }

    @Override
    boolean canStartTls() {
      return !tls;
    }

    @Override
    Transport startTls(NbdTls t) throws IOException {
      return new OverSocket(t.wrap(socket), true);
    }

    @Override
    void idleTimeout(Duration d) throws IOException {
      socket.setSoTimeout((int) Math.min(Integer.MAX_VALUE, d.toMillis()));
    }

    @Override
    public void close() throws IOException {
      if (tls && !socket.isClosed()) {
        // close_notify alone: a duplex close before the client's close_notify adds a TLS 1.3
        // user_canceled alert, which GnuTLS (libnbd) reports as a fatal error on disconnect
        try {
          socket.shutdownOutput();
        } catch (IOException e) {
          // the connection is gone already; close anyway
        }
      }
      socket.close();
    }
  }

  /** Over a Unix-domain socket channel. */
  static final class OverChannel extends Transport {
    private final SocketChannel channel;

    OverChannel(SocketChannel channel, String peer) {
      super(Channels.newInputStream(channel), Channels.newOutputStream(channel), peer);
      this.channel = channel;
    }

    @Override
    public void close() throws IOException {
      channel.close();
    }
  }

  /** Over two streams (stdin and stdout), closed together. */
  static final class OverStreams extends Transport {
    OverStreams(InputStream in, OutputStream out, String peer) {
      super(in, out, peer);
    }

    @Override
    public void close() throws IOException {
      try {
        out().close();
      } finally {
        in().close();
      }
    }
  }
}
