package org.jverity.nbd;

import java.io.DataInputStream;
import java.io.EOFException;
import java.io.IOException;
import java.net.SocketTimeoutException;
import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;

/**
 * One client's life, as nbdkit's {@code connections.c}: the handshake, then the transmission phase
 * (decode a {@link RequestHeader}, {@linkplain RequestValidation validate} it, hand it to the
 * {@link ExportCommands}), then its end (drained on shutdown, or cut off). One virtual thread reads
 * requests; a READ with nothing queued behind it is served on that thread, every other READ, CACHE
 * and BLOCK_STATUS on a virtual thread of its own, at most {@link ServerLimits#maxInFlight()} at
 * once (past that the connection stops reading, and TCP pushes back), and replies go out in
 * whatever order they finish, matched by cookie.
 *
 * <pre>
 * C: u32 0x25609513 u16 flags u16 type u64 cookie u64 offset u32 length [WRITE payload]
 * S: u32 0x67446698 u32 error u64 cookie [data]                       (simple reply)
 * S: u32 0x668e33ef u16 flags u16 type u64 cookie u32 length payload (structured chunk)
 * </pre>
 */
final class Connection implements Runnable {
  private static final byte[] DRAIN = new byte[64 << 10];

  private final NbdServer server;
  private final ServerLimits limits;
  private final NbdEvents events;
  private Transport transport;
  private final String peer;
  private final Semaphore inFlight; // permits: requests that may still start
  private final CountDownLatch ended = new CountDownLatch(1); // run() has left the server
  private volatile boolean draining; // the server is shutting down: answer ESHUTDOWN
  private volatile boolean answering; // a request read is not yet answered or started
  private volatile long lastRequest = Long.MIN_VALUE; // nanoTime the last one was handled
  private volatile Export export; // once the handshake chose it; null before

  Connection(NbdServer server, Transport transport) {
    this.server = server;
    this.limits = server.limits();
    this.events = server.events();
    this.transport = transport;
    this.peer = transport.peer();
    this.inFlight = new Semaphore(limits.maxInFlight());
  }

  String peer() {
    return peer;
  }

  /** The export this connection reads, once its handshake has chosen one; null before. */
  Export export() {
    return export;
  }

  @Override
  public void run() {
    NbdServer.quietly(() -> events.connected(peer));
    String reason = "client closed the connection";
    try {
      if (!limits.idleTimeout().isZero()) {
        transport.idleTimeout(limits.idleTimeout());
      }
      Session s =
          new Handshake(transport, server.exports(), server.tls(), limits, server.isShuttingDown())
              .run();
      if (s == null) {
        reason = "client aborted the handshake";
        return;
      }
      transport = s.transport();
      export = s.export();
      if (!server.serves(export)) { // withdrawn while this client was in its handshake (withdraw
        reason = "export withdrawn"; // reads export after changing the map: one of the two sees the
        // other)
        return;
      }
      reason = serve(s);
    } catch (NbdProtocolException e) {
      reason = "protocol error: " + e.getMessage();
      NbdServer.quietly(() -> events.protocolError(peer, e.getMessage()));
    } catch (EOFException e) {
      reason = "client closed the connection";
    } catch (SocketTimeoutException e) {
      reason = "idle for " + limits.idleTimeout().toSeconds() + " s";
    } catch (IOException e) {
      reason = draining ? "server shut down" : "connection failed: " + e.getMessage();
    } catch (RuntimeException | Error e) {
      reason = "internal error: " + e;
    } finally {
      inFlight.acquireUninterruptibly(limits.maxInFlight()); // every request started has answered
      inFlight.release(limits.maxInFlight()); // (a drain looks at the same permits)
      closeQuietly();
      server.ended(this);
      ended.countDown();
      String why = reason;
      NbdServer.quietly(() -> events.disconnected(peer, why));
    }
  }

  /**
   * A drain (a withdraw, a reload, a shutdown), as the spec's soft disconnect: every request read
   * before it is answered, with its data or its error; every request read from then on gets
   * ESHUTDOWN, for as long as the client goes on sending. The connection closes once the client has
   * gone (NBD_CMD_DISC, or its end of the socket), or once nothing has been in flight or arrived
   * for {@link #QUIET}, or at {@code deadline} ({@link System#nanoTime()}) whatever is still going
   * on (a client that does not read its replies would hold its connection for ever). Returns then.
   */
  void drainAndClose(long deadline) {
    draining = true;
    long quietSince = System.nanoTime();
    while (!awaitEnd(POLL)) {
      long now = System.nanoTime();
      if (answering || inFlight.availablePermits() < limits.maxInFlight()) {
        quietSince = now;
      }
      quietSince = Math.max(quietSince, lastRequest);
      if (now - quietSince >= QUIET.toNanos() || now - deadline >= 0) {
        closeQuietly(); // the reading thread ends on the closed socket
        return;
      }
    }
  }

  /**
   * How long a draining connection stays open with nothing to answer: a client told ESHUTDOWN has
   * this long to disconnect, and a request it sends meanwhile is answered; one that sends nothing
   * is closed after it.
   */
  static final Duration QUIET = Duration.ofMillis(500);

  /** How often a drain looks whether its connection is quiet. */
  private static final Duration POLL = Duration.ofMillis(10);

  /**
   * Waits until this connection's thread has left the server (no longer counted in its
   * connections), at most {@code timeout}; whether it has.
   */
  boolean awaitEnd(Duration timeout) {
    try {
      return ended.await(Math.max(0, timeout.toNanos()), TimeUnit.NANOSECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return false;
    }
  }

  /** Closes the connection now, whatever is in flight (replies being written then fail). */
  void forceClose() {
    draining = true;
    closeQuietly();
  }

  private void closeQuietly() {
    try {
      transport.close();
    } catch (IOException ignored) {
      // closing a socket that failed: nothing left to do
    }
  }

  /** The transmission phase; returns why it ended. */
  private String serve(Session s) throws IOException {
    DataInputStream in = new DataInputStream(transport.in());
    ExportCommands commands =
        new ExportCommands(
            s,
            new ReplyWriter(transport.out()),
            server.buffers(),
            limits,
            events,
            this::closeQuietly);
    while (true) {
      RequestHeader h = RequestHeader.decode(in);
      answering = true; // a drain now waits for it to be answered or started
      try {
        if (!handle(s, commands, h, in)) {
          return "client disconnected";
        }
      } finally {
        lastRequest = System.nanoTime();
        answering = false;
      }
    }
  }

  /** Answers or starts one request read; false for NBD_CMD_DISC. */
  private boolean handle(Session s, ExportCommands commands, RequestHeader h, DataInputStream in)
      throws IOException {
    long t0 = System.nanoTime();
    NbdCommand cmd = h.command();
    if (cmd == NbdCommand.WRITE) {
      drain(in, h.length());
      commands.fail(h, t0, NbdError.EPERM, "the export is read-only", h.length());
    } else if (cmd == NbdCommand.DISC) {
      return false;
    } else if (draining || server.isShuttingDown()) {
      commands.fail(h, t0, NbdError.ESHUTDOWN, "the server is shutting down", 0);
    } else if (RequestValidation.validate(h, s, limits) instanceof Refusal refusal) {
      commands.refuse(h, t0, refusal);
    } else if (cmd == NbdCommand.FLUSH) { // read-only: nothing to flush
      commands.ok(h, t0);
    } else {
      start(commands, h, t0); // READ, CACHE or BLOCK_STATUS: validation refuses every other command
    }
    return true;
  }

  /**
   * Runs a READ, CACHE or BLOCK_STATUS: a READ with nothing queued behind it on this thread, the
   * rest each on a virtual thread of its own, at most {@link ServerLimits#maxInFlight()} at once.
   */
  private void start(ExportCommands commands, RequestHeader h, long t0) throws IOException {
    NbdCommand cmd = h.command();
    // Asked before a permit is taken: available() fails once a reply's failure has closed the
    // socket, and a permit taken then would never be given back (the connection's end waits
    // for every permit, so it would wait for ever).
    boolean nothingQueued = cmd == NbdCommand.READ && transport.in().available() == 0;
    inFlight.acquireUninterruptibly(); // past the limit, stop reading: TCP pushes back
    if (nothingQueued) {
      // Nothing queued behind it (a client waiting for this reply): serve it on this thread,
      // with a reused buffer. A thread per request costs more than a small read.
      byte[] buffer = null;
      try {
        buffer = commands.inlineBuffer(h);
        commands.read(h, t0, buffer);
      } finally {
        if (buffer != null) {
          commands.giveBuffer(buffer);
        }
        inFlight.release();
      }
      return;
    }
    try {
      Thread.ofVirtual()
          .name("nbd-request")
          .start(
              () -> {
                try {
                  switch (cmd) {
                    case READ -> commands.read(h, t0, null);
                    case CACHE -> commands.cache(h, t0);
                    default -> commands.blockStatus(h, t0);
                  }
                } finally {
                  inFlight.release();
                }
              });
    } catch (RuntimeException | OutOfMemoryError e) {
      inFlight.release();
      commands.fail(h, t0, NbdError.ENOMEM, "cannot start the request", 0);
    }
  }

  /**
   * Reads and drops a WRITE payload, so the next request can be read; a huge one ends the
   * connection.
   */
  private void drain(DataInputStream in, long length) throws IOException {
    if (length > limits.maxWriteDrain()) {
      throw new NbdProtocolException(
          "write of "
              + length
              + " bytes to a read-only export (expected: at most "
              + limits.maxWriteDrain()
              + " to drain)");
    }
    for (long left = length; left > 0; ) {
      int n = (int) Math.min(DRAIN.length, left);
      in.readFully(DRAIN, 0, n); // the bytes are dropped; sharing the array is harmless
      left -= n;
    }
  }
}
