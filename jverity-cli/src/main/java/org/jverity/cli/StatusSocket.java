package org.jverity.cli;

import java.io.IOException;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.function.Supplier;

/**
 * The status socket of one served export, {@code RUNTIME_DIR/NAME.ctl}: a Unix-domain socket on
 * which {@code jverity status NAME} sends one line, {@code status} (or {@code status json} for
 * {@code --json}), and reads the report until the server closes. A socket file left by a server that died is replaced; one whose server still
 * answers is refused, so two servers cannot claim one name. Thread-safe; one virtual thread
 * accepts, one per client answers.
 */
final class StatusSocket implements AutoCloseable {
  /** The request, and the longest one read. */
  static final String REQUEST = "status\n";
  /** The request for the report as one JSON object ({@link StatusReport#json}). */
  static final String JSON_REQUEST = "status json\n";

  private static final int MAX_REQUEST = 64; // bytes

  private final Path path;
  private final ServerSocketChannel channel;
  private volatile boolean closed;

  private StatusSocket(Path path, ServerSocketChannel channel) {
    this.path = path;
    this.channel = channel;
  }

  /** Listens at {@code path}, answering each request with {@code report.get()}, or {@code json.get()}. */
  static StatusSocket open(Path path, String name, Supplier<String> report, Supplier<String> json)
      throws IOException {
    if (Files.exists(path)) {
      if (query(path, Duration.ofSeconds(2)) != null) {
        throw new CliException(ExitCode.IO_ERROR, "export " + ServerLog.display(name)
            + ": already served by another jverity (status socket " + path + ")");
      }
      Files.deleteIfExists(path); // left by a server that died
    }
    ServerSocketChannel channel = ServerSocketChannel.open(StandardProtocolFamily.UNIX);
    try {
      channel.bind(UnixDomainSocketAddress.of(path), 16);
    } catch (IOException e) {
      channel.close();
      throw new IOException(path + ": cannot create the status socket: " + e.getMessage(), e);
    }
    StatusSocket s = new StatusSocket(path, channel);
    Thread.ofVirtual().name("jverity-status").start(() -> s.accept(report, json));
    return s;
  }

  private void accept(Supplier<String> report, Supplier<String> json) {
    while (!closed) {
      try {
        SocketChannel c = channel.accept();
        Thread.ofVirtual().name("jverity-status-client").start(() -> answer(c, report, json));
      } catch (IOException e) {
        return; // closed
      }
    }
  }

  private static void answer(SocketChannel c, Supplier<String> report, Supplier<String> json) {
    try (c) {
      ByteBuffer in = ByteBuffer.allocate(MAX_REQUEST);
      while (in.hasRemaining() && c.read(in) > 0) {
        if (in.get(in.position() - 1) == '\n') {
          break;
        }
      }
      String request = new String(in.array(), 0, in.position(), StandardCharsets.UTF_8);
      String reply = request.equals(REQUEST) ? report.get() : request.equals(JSON_REQUEST) ? json.get()
          : "error: unknown request (expected: status or status json)\n";
      ByteBuffer out = ByteBuffer.wrap(reply.getBytes(StandardCharsets.UTF_8));
      while (out.hasRemaining()) {
        c.write(out);
      }
    } catch (IOException | RuntimeException e) {
      // the client went away; nothing to tell it
    }
  }

  /**
   * Asks the server at {@code path} for its report; null when no server answers there (no socket
   * file, or one nobody listens on) within {@code timeout}.
   */
  static String query(Path path, Duration timeout) {
    return query(path, REQUEST, timeout);
  }

  /** As {@link #query(Path, Duration)}, sending {@code request}. */
  static String query(Path path, String request, Duration timeout) {
    if (!Files.exists(path)) {
      return null;
    }
    var result = new java.util.concurrent.atomic.AtomicReference<String>();
    Thread t = Thread.ofVirtual().name("jverity-status-query").start(() -> {
      try (SocketChannel c = SocketChannel.open(UnixDomainSocketAddress.of(path))) {
        c.write(ByteBuffer.wrap(request.getBytes(StandardCharsets.UTF_8)));
        c.shutdownOutput();
        result.set(new String(java.nio.channels.Channels.newInputStream(c).readAllBytes(), StandardCharsets.UTF_8));
      } catch (IOException e) {
        // nobody listens: a stale socket file
      }
    });
    try {
      if (!t.join(timeout)) {
        t.interrupt(); // closes the channel
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    return result.get();
  }

  /** Stops answering and removes the socket file. */
  @Override
  public void close() {
    closed = true;
    try {
      channel.close();
    } catch (IOException e) {
      // closing a listening socket loses nothing
    }
    try {
      Files.deleteIfExists(path);
    } catch (IOException e) {
      // a stale file is replaced by the next server
    }
  }
}
