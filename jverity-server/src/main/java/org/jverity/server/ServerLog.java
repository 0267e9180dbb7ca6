package org.jverity.server;

import java.io.PrintWriter;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import org.jverity.nbd.NbdEvents;
import org.jverity.tree.Area;
import org.jverity.tree.BlockRef;
import org.jverity.tree.Corruption;
import org.jverity.verify.CorruptBlockException;
import org.jverity.verify.CorruptionMode;

/**
 * The server's log on stderr: one line per connection, per refused client and per corruption
 * ({@code jverity: 127.0.0.1:51234 connected}, {@code jverity: export root: data block 1234 is
 * corrupted}). Corruption lines stop after {@link Corruption#MAX_REPORTED} per export, with a line
 * saying so, as dm-verity limits its own; {@code status} still counts every one. Requests are not
 * logged. Thread-safe: lines are written whole under the writer's lock.
 */
public final class ServerLog implements NbdEvents {
  private final PrintWriter err;
  private final Map<String, AtomicInteger> corruptionLines = new ConcurrentHashMap<>();

  /** Peers connected now: their protocol errors are said by their disconnection line. */
  private final Set<String> open = ConcurrentHashMap.newKeySet();

  public ServerLog(PrintWriter err) {
    this.err = err;
  }

  public void line(String text) {
    synchronized (err) {
      err.println("jverity: " + text);
      err.flush();
    }
  }

  public void flush() {
    synchronized (err) {
      err.flush();
    }
  }

  @Override
  public void connected(String peer) {
    open.add(peer);
    line(peer(peer) + " connected");
  }

  @Override
  public void disconnected(String peer, String reason) {
    open.remove(peer);
    line(peer(peer) + " disconnected: " + reason);
  }

  /**
   * Logged only for a client refused before it connected: a connection's protocol error ends it,
   * and its "disconnected: protocol error: ..." line already says what (one line, not two).
   */
  @Override
  public void protocolError(String peer, String message) {
    if (open.contains(peer)) {
      return;
    }
    line(peer(peer) + ": " + message);
  }

  /** "127.0.0.1:51234" rather than InetSocketAddress's "/127.0.0.1:51234". */
  private static String peer(String peer) {
    return peer.startsWith("/") ? peer.substring(1) : peer;
  }

  /** Logged from the reader's listener instead, which sees every mode (also ignored corruption). */
  @Override
  public void corruption(String export, CorruptBlockException e) {}

  /** A block of {@code export} did not verify; {@code ignored} under --ignore-corruption. */
  public void corrupted(String export, CorruptBlockException e, boolean ignored) {
    int n = corruptionLines.computeIfAbsent(export, k -> new AtomicInteger()).incrementAndGet();
    if (n <= Corruption.MAX_REPORTED) {
      line("export " + display(export) + ": " + what(e) + (ignored ? " (ignored)" : ""));
    } else if (n == Corruption.MAX_REPORTED + 1) {
      line(
          "export "
              + display(export)
              + ": more corrupted blocks, not logged (jverity status counts them)");
    }
  }

  /** FEC corrected a block of {@code export} (the correction verified against the tree). */
  public void corrected(String export, Area area, long block) {
    line(
        "export " + display(export) + ": " + new BlockRef(area, block, -1) + " corrected with FEC");
  }

  /** The reader of {@code export} failed closed: the server stops. */
  public void failedClosed(String export, CorruptionMode mode, CorruptBlockException cause) {
    line(
        "export "
            + display(export)
            + ": "
            + what(cause)
            + ": "
            + mode.name().toLowerCase(Locale.ROOT)
            + "_on_corruption, stopping the server");
  }

  /**
   * "data block 1234 is corrupted", "hash block 12 (level 0) is corrupted", or "data block 1234
   * could not be read (error_as_corruption)".
   */
  public static String what(CorruptBlockException e) {
    return e.ref()
        + (e.unreadable() ? " could not be read (error_as_corruption)" : " is corrupted");
  }

  /** An export name for a log line: the default export has an empty name. */
  public static String display(String export) {
    return export.isEmpty() ? "(default)" : export;
  }
}
