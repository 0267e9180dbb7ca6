package org.jverity.server.status;

import java.io.IOException;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.Channels;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Supplier;
import org.jverity.server.ServerException;
import org.jverity.server.ServerLog;

/**
 * The status socket of one served export, {@code RUNTIME_DIR/NAME.ctl}: a Unix-domain socket on
 * which {@code jverity status NAME} sends one line, {@code status} (or {@code status json} for
 * {@code --json}), and reads the report until the server closes; {@code jverity close NAME} sends
 * {@code close}, reads {@code closing}, then {@code closed} once the export is withdrawn (or the
 * end of the stream, when it was the server's last and the server has exited); {@code jverity
 * reload NAME} sends {@code reload} to a {@code serve}, which rereads its config and answers one
 * line once done ({@link #RELOADED} and what changed, or why it was refused). Only this server's
 * own user may close or reload ({@link PeerCheck}). A socket file left by a server that died is
 * replaced; one whose server still answers is refused, so two servers cannot claim one name.
 * Thread-safe; one virtual thread accepts, one per client answers.
 */
public final class StatusSocket implements AutoCloseable {
  /** The request, and the longest one read. */
  public static final String REQUEST = "status\n";

  /** The request for the report as one JSON object (the server's StatusReport). */
  public static final String JSON_REQUEST = "status json\n";

  /** The request to stop serving the export. */
  public static final String CLOSE = "close\n";

  /** The first line of the answer to {@link #CLOSE}, at once. */
  public static final String CLOSING = "closing\n";

  /** The request to reread the config, as SIGHUP does. */
  public static final String RELOAD = "reload\n";

  /** How the answer to {@link #RELOAD} starts when the config was reloaded. */
  public static final String RELOADED = "reloaded config: ";

  /**
   * How the answer to {@link #RELOAD} starts when the reload was refused: then the exit code the
   * mistake has at start, a colon and the log's line ({@code refused 3: config reload refused:
   * ...}).
   */
  public static final String REFUSED = "refused ";

  private static final int MAX_REQUEST = 64; // bytes

  private final Path path;
  private final ServerSocketChannel channel;
  private final Runnable close; // null: close is not offered
  private final Supplier<String> reload; // the one-line answer; null: reload is not offered
  private final AtomicBoolean closing = new AtomicBoolean();
  private volatile boolean closed;

  private StatusSocket(
      Path path, ServerSocketChannel channel, Runnable close, Supplier<String> reload) {
    this.path = path;
    this.channel = channel;
    this.close = close;
    this.reload = reload;
  }

  /**
   * Listens at {@code path}, answering each request with {@code report.get()}, or {@code
   * json.get()}; a {@code close} request runs {@code close} (null: not offered), which returns once
   * the export is withdrawn; this socket is then closed too. A {@code reload} request runs {@code
   * reload} (null: not offered), which returns the answer's one line once the reload is done.
   */
  public static StatusSocket open(
      Path path,
      String name,
      Supplier<String> report,
      Supplier<String> json,
      Runnable close,
      Supplier<String> reload)
      throws IOException {
    if (Files.exists(path)) {
      if (query(path, Duration.ofSeconds(2)) != null) {
        throw new ServerException(
            ServerException.Reason.IO,
            "export "
                + ServerLog.display(name)
                + ": already served by another jverity (status socket "
                + path
                + ")");
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
    StatusSocket s = new StatusSocket(path, channel, close, reload);
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

  private void answer(SocketChannel c, Supplier<String> report, Supplier<String> json) {
    try (c) {
      ByteBuffer in = ByteBuffer.allocate(MAX_REQUEST);
      while (in.hasRemaining() && c.read(in) > 0) {
        if (in.get(in.position() - 1) == '\n') {
          break;
        }
      }
      String request = new String(in.array(), 0, in.position(), StandardCharsets.UTF_8);
      if (request.equals(CLOSE) && close != null) {
        answerClose(c);
        return;
      }
      if (request.equals(RELOAD)) {
        answerReload(c);
        return;
      }
      write(
          c,
          request.equals(REQUEST)
              ? report.get()
              : request.equals(JSON_REQUEST)
                  ? json.get()
                  : "error: unknown request (expected: status, status json, close or reload)\n");
    } catch (IOException | RuntimeException e) {
      // the client went away; nothing to tell it
    }
  }

  private void answerClose(SocketChannel c) throws IOException {
    if (!PeerCheck.sameUser(c)) {
      write(c, "error: refused: only the user this server runs as may close its exports\n");
      return;
    }
    if (!closing.compareAndSet(false, true)) {
      write(c, "error: already closing\n");
      return;
    }
    write(c, CLOSING);
    close.run();
    close();
    write(c, "closed\n");
  }

  private void answerReload(SocketChannel c) throws IOException {
    if (!PeerCheck.sameUser(c)) {
      write(c, "error: refused: only the user this server runs as may reload its config\n");
      return;
    }
    if (reload == null) {
      write(
          c,
          "error: this server has no config to reread (expected: an export of jverity serve"
              + " CONFIG)\n");
      return;
    }
    write(c, reload.get() + "\n");
  }

  private static void write(SocketChannel c, String reply) throws IOException {
    ByteBuffer out = ByteBuffer.wrap(reply.getBytes(StandardCharsets.UTF_8));
    while (out.hasRemaining()) {
      c.write(out);
    }
  }

  /**
   * What the server at a status socket said, or why none did.
   *
   * @param text the whole answer; null unless {@link #answered()}
   * @param listening whether a server took the connection (false: no socket file, or a stale one
   *     left by a server that died)
   */
  public record Reply(String text, boolean listening) {
    public boolean answered() {
      return text != null;
    }
  }

  /**
   * Asks the server at {@code path} for its report; null when no server answers there (no socket
   * file, or one nobody listens on) within {@code timeout}.
   *
   * @throws ServerException when a server of another user answers there ({@link PeerCheck})
   */
  public static String query(Path path, Duration timeout) {
    return query(path, REQUEST, timeout);
  }

  /** As {@link #query(Path, Duration)}, sending {@code request}. */
  public static String query(Path path, String request, Duration timeout) {
    return ask(path, request, timeout).text();
  }

  /**
   * Sends {@code request} to the server at {@code path} and reads its answer to the end, waiting at
   * most {@code timeout}; first checks that the server runs as this user.
   *
   * @throws ServerException when a server of another user answers there ({@link PeerCheck})
   */
  public static Reply ask(Path path, String request, Duration timeout) {
    if (!Files.exists(path)) {
      return new Reply(null, false);
    }
    SocketChannel c;
    try {
      c = SocketChannel.open(UnixDomainSocketAddress.of(path));
    } catch (IOException e) {
      return new Reply(null, false); // nobody listens: a stale socket file
    }
    try (c) {
      PeerCheck.requireSameUser(c, path);
      var result = new AtomicReference<String>();
      Thread t =
          Thread.ofVirtual()
              .name("jverity-status-query")
              .start(
                  () -> {
                    try {
                      write(c, request);
                      c.shutdownOutput();
                      result.set(
                          new String(
                              Channels.newInputStream(c).readAllBytes(), StandardCharsets.UTF_8));
                    } catch (IOException e) {
                      // the server went away before answering
                    }
                  });
      try {
        if (!t.join(timeout)) {
          t.interrupt(); // closes the channel
        }
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
      return new Reply(result.get(), true);
    } catch (IOException e) {
      return new Reply(null, true); // closing what was read: nothing lost
    }
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
