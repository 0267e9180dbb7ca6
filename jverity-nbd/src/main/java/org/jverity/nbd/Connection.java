package org.jverity.nbd;

import java.io.DataInputStream;
import java.io.EOFException;
import java.io.IOException;
import java.net.SocketTimeoutException;
import java.util.Locale;
import java.util.concurrent.Semaphore;
import org.jverity.verify.CorruptBlockException;
import org.jverity.verify.FailedClosedException;
import org.jverity.verify.IoClass;
import org.jverity.verify.SourceClosedException;
import org.jverity.verify.VerifiedReader;

/**
 * One client: the handshake, then the transmission phase. One virtual thread reads requests; each
 * READ, CACHE and BLOCK_STATUS runs on a virtual thread of its own, at most
 * {@link ServerLimits#maxInFlight()} at once (past that the connection stops reading, and TCP
 * pushes back), and replies go out in whatever order they finish, matched by cookie. Every byte
 * sent in a data reply has verified; a block that fails gets EIO for that request only.
 *
 * <pre>
 * C: u32 0x25609513 u16 flags u16 type u64 cookie u64 offset u32 length [WRITE payload]
 * S: u32 0x67446698 u32 error u64 cookie [data]                       (simple reply)
 * S: u32 0x668e33ef u16 flags u16 type u64 cookie u32 length payload (structured chunk)
 * </pre>
 */
final class Connection implements Runnable {
  /** The id {@code base:allocation} gets when a client selects it. */
  static final int BASE_ALLOCATION_ID = 1;
  /** Bytes verified and sent per OFFSET_DATA chunk of a structured READ. */
  private static final int PIECE = 1 << 20;
  /** Data blocks BLOCK_STATUS looks at per request: the client asks again for the rest. */
  private static final int MAX_STATUS_BLOCKS = 1 << 16;
  private static final byte[] DRAIN = new byte[64 << 10];

  private final NbdServer server;
  private final ServerLimits limits;
  private final NbdEvents events;
  private Transport transport;
  private final String peer;
  private final Semaphore inFlight; // permits: requests that may still start
  private volatile boolean draining; // the server is shutting down: answer ESHUTDOWN
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
      Session s = new Handshake(transport, server.exports(), server.tls(), limits, server.isShuttingDown()).run();
      if (s == null) {
        reason = "client aborted the handshake";
        return;
      }
      transport = s.transport();
      export = s.export();
      if (!server.serves(export)) { // withdrawn while this client was in its handshake (withdraw
        reason = "export withdrawn"; // reads export after changing the map: one of the two sees the other)
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
      inFlight.release(limits.maxInFlight()); // (a concurrent drainAndClose waits for the same)
      closeQuietly();
      server.ended(this);
      String why = reason;
      NbdServer.quietly(() -> events.disconnected(peer, why));
    }
  }

  /** Shutdown: later requests get ESHUTDOWN; once those in flight answered, the connection closes. */
  void drainAndClose() {
    draining = true;
    inFlight.acquireUninterruptibly(limits.maxInFlight());
    inFlight.release(limits.maxInFlight());
    closeQuietly();
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
    ReplyWriter out = new ReplyWriter(transport.out());
    Export export = s.export();
    while (true) {
      int magic = in.readInt();
      if (magic != Nbd.REQUEST_MAGIC) {
        throw new NbdProtocolException("request magic 0x" + Integer.toHexString(magic) + " (expected: 0x25609513)");
      }
      int flags = in.readUnsignedShort();
      int type = in.readUnsignedShort();
      long cookie = in.readLong();
      long offset = in.readLong();
      long length = Integer.toUnsignedLong(in.readInt());
      long t0 = System.nanoTime();
      NbdCommand cmd = NbdCommand.fromWire(type);
      Request r = new Request(s, out, cmd, flags, cookie, offset, length, t0);
      if (cmd == NbdCommand.WRITE) {
        drain(length);
        r.fail(NbdError.EPERM, "the export is read-only", length);
        continue;
      }
      if (cmd == NbdCommand.DISC) {
        return "client disconnected";
      }
      if (draining || server.isShuttingDown()) {
        r.fail(NbdError.ESHUTDOWN, "the server is shutting down", 0);
        continue;
      }
      if (cmd == null) {
        r.fail(NbdError.EINVAL, "unknown command " + type, 0);
        continue;
      }
      if ((flags & ~cmd.flags) != 0 || ((flags & Nbd.CMD_FLAG_DF) != 0 && !s.structured())) {
        r.fail(NbdError.EINVAL, "command flags 0x" + Integer.toHexString(flags) + " are not valid for "
            + r.name(), 0);
        continue;
      }
      switch (cmd) {
        case FLUSH -> {
          if (offset != 0 || length != 0) {
            r.fail(NbdError.EINVAL, "flush takes no range", 0);
          } else {
            r.ok();
          }
        }
        case TRIM, WRITE_ZEROES -> r.fail(NbdError.EPERM, "the export is read-only", 0);
        case READ, CACHE, BLOCK_STATUS -> {
          String invalid = rangeError(cmd, flags, offset, length, export, s);
          if (invalid != null) {
            r.fail(invalid.startsWith("!") ? NbdError.EOVERFLOW : NbdError.EINVAL, invalid.replace("!", ""), 0);
            continue;
          }
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
              buffer = inlineBuffer(r);
              read(r, export, buffer);
            } finally {
              if (buffer != null) {
                server.giveBuffer(buffer);
              }
              inFlight.release();
            }
            continue;
          }
          try {
            Thread.ofVirtual().name("nbd-request").start(() -> {
              try {
                switch (cmd) {
                  case READ -> read(r, export, null);
                  case CACHE -> cache(r, export);
                  default -> blockStatus(r, export);
                }
              } finally {
                inFlight.release();
              }
            });
          } catch (RuntimeException | OutOfMemoryError e) {
            inFlight.release();
            r.fail(NbdError.ENOMEM, "cannot start the request", 0);
          }
        }
        default -> r.fail(NbdError.EINVAL, "unexpected command " + r.name(), 0);
      }
    }
  }

  /**
   * A buffer of one piece and a header for a READ served on the reading thread, to give back
   * after the reply; null when the request needs more (a simple reply, or a structured one with
   * DF, of more than a piece is read whole into a buffer of its own). Never both: a request that
   * held this one while it waited for its own could wait for ever, its own buffer keeping the room
   * it needs (a 32 MiB read with DF takes the whole read-buffer budget).
   */
  private byte[] inlineBuffer(Request r) {
    int size = PIECE + ReplyWriter.DATA_CHUNK_HEADER;
    return replyBufferLength(r) > size ? null : server.takeBuffer(size);
  }

  /** Bytes of the buffer {@link #read} reads {@code r} into: its reply header, then a piece. */
  private static int replyBufferLength(Request r) {
    int length = (int) r.length; // <= max request length
    boolean structured = r.session.structured();
    int piece = !structured || (r.flags & Nbd.CMD_FLAG_DF) != 0 ? length : Math.min(length, PIECE);
    return (structured ? ReplyWriter.DATA_CHUNK_HEADER : ReplyWriter.SIMPLE_HEADER) + piece;
  }

  /** Why a READ, CACHE or BLOCK_STATUS cannot be served, or null; "!" marks EOVERFLOW. */
  private String rangeError(NbdCommand cmd, int flags, long offset, long length, Export export, Session s) {
    if (length == 0) {
      return "zero-length " + cmd.name().toLowerCase(Locale.ROOT);
    }
    if (offset < 0 || offset > export.size() - length) {
      return cmd.name().toLowerCase(Locale.ROOT) + " of " + length + " bytes at " + offset
          + " is outside the export (" + export.size() + " bytes)";
    }
    if (cmd == NbdCommand.READ && length > limits.maxRequestLength()) {
      return ((flags & Nbd.CMD_FLAG_DF) != 0 ? "!" : "") + "read of " + length + " bytes (expected: at most "
          + limits.maxRequestLength() + ")";
    }
    if (cmd == NbdCommand.BLOCK_STATUS && !s.blockStatus()) {
      return "block status without base:allocation selected";
    }
    return null;
  }

  /** Reads and drops a WRITE payload, so the next request can be read; a huge one ends the connection. */
  private void drain(long length) throws IOException {
    if (length > limits.maxWriteDrain()) {
      throw new NbdProtocolException("write of " + length + " bytes to a read-only export (expected: at most "
          + limits.maxWriteDrain() + " to drain)");
    }
    DataInputStream in = new DataInputStream(transport.in());
    for (long left = length; left > 0; ) {
      int n = (int) Math.min(DRAIN.length, left);
      in.readFully(DRAIN, 0, n); // the bytes are dropped; sharing the array is harmless
      left -= n;
    }
  }

  /**
   * READ: verified bytes only. Simple replies: the whole range verifies before the header goes out,
   * else EIO and no data. Structured: pieces are verified and sent as OFFSET_DATA chunks; at a block
   * that fails, the verified bytes before it go out and an ERROR_OFFSET names its offset (with DF,
   * one chunk: the whole range first).
   */
  private void read(Request r, Export export, byte[] reusable) {
    int length = (int) r.length; // <= max request length
    boolean structured = r.session.structured();
    int header = structured ? ReplyWriter.DATA_CHUNK_HEADER : ReplyWriter.SIMPLE_HEADER;
    int needed = replyBufferLength(r);
    int piece = needed - header;
    boolean own = reusable == null || reusable.length < needed;
    // The data lands after room for its reply header: header and data leave in one write.
    byte[] buf = own ? server.takeBuffer(needed) : reusable;
    try {
      long sent = 0;
      for (long pos = r.offset, end = r.offset + length; pos < end; ) {
        int n = (int) Math.min(piece, end - pos);
        try {
          export.source().read(pos, buf, header, n, export.ioClass());
        } catch (CorruptBlockException e) {
          NbdServer.quietly(() -> events.corruption(export.name(), e));
          long bad = e.dataBlock() < 0 ? pos : Math.max(pos, e.dataBlock() * export.blockSize());
          if (structured) {
            int good = (int) (bad - pos); // verified bytes before the block that failed
            if (good > 0) {
              r.out.offsetDataInPlace(r.cookie, false, pos, buf, good);
              sent += good;
            }
            r.out.errorOffset(r.cookie, NbdError.EIO, "verity: " + e.getMessage(), bad);
          } else {
            r.out.simple(r.cookie, NbdError.EIO);
          }
          r.report(sent, NbdError.EIO);
          return;
        }
        if (structured) {
          r.out.offsetDataInPlace(r.cookie, pos + n == end, pos, buf, n);
        } else {
          r.out.simpleInPlace(r.cookie, buf, n); // piece == length: this is the whole reply
        }
        sent += n;
        pos += n;
      }
      r.report(sent, null);
    } catch (IOException e) {
      r.failQuietly(e);
    } finally {
      if (own) {
        server.giveBuffer(buf);
      }
    }
  }

  /** CACHE: reads and verifies the range at the idle class, so later reads find the tree cached. */
  private void cache(Request r, Export export) {
    int piece = (int) Math.min(r.length, PIECE);
    long end = r.offset + Math.min(r.length, limits.maxRequestLength()); // a hint: past this, nothing
    byte[] buf = server.takeBuffer(piece);
    try {
      for (long pos = r.offset; pos < end; pos += piece) {
        export.source().read(pos, buf, 0, (int) Math.min(piece, end - pos), IoClass.IDLE);
      }
      r.ok();
    } catch (CorruptBlockException e) {
      NbdServer.quietly(() -> events.corruption(export.name(), e));
      r.failQuietly(e);
    } catch (IOException e) {
      r.failQuietly(e);
    } finally {
      server.giveBuffer(buf);
    }
  }

  /**
   * BLOCK_STATUS for {@code base:allocation}: under ignore_zero_blocks, blocks whose trusted digest
   * is the zero block's are holes that read as zeros (HOLE|ZERO), so copies can skip them; all else
   * is data (0). Without it, one extent of data.
   */
  private void blockStatus(Request r, Export export) {
    try {
      VerifiedReader reader = export.reader();
      long end = r.offset + r.length;
      int[] extents;
      int pairs;
      if (!reader.ignoresZeroBlocks()) {
        extents = new int[] {(int) r.length, 0};
        pairs = 1;
      } else {
        int bs = export.blockSize();
        boolean one = (r.flags & Nbd.CMD_FLAG_REQ_ONE) != 0;
        extents = new int[64];
        pairs = 0;
        long pos = r.offset;
        for (int looked = 0; pos < end && looked < MAX_STATUS_BLOCKS; looked++) {
          long block = pos / bs;
          int state = reader.isZeroBlock(block) ? Nbd.STATE_HOLE | Nbd.STATE_ZERO : 0;
          long to = Math.min(end, (block + 1) * bs);
          if (pairs > 0 && extents[2 * pairs - 1] == state) {
            extents[2 * pairs - 2] += (int) (to - pos); // extends the run: the total stays < 2^32
          } else {
            if (one && pairs == 1) {
              break;
            }
            if (2 * pairs == extents.length) {
              extents = java.util.Arrays.copyOf(extents, 2 * extents.length);
            }
            extents[2 * pairs] = (int) (to - pos);
            extents[2 * pairs + 1] = state;
            pairs++;
          }
          pos = to;
        }
      }
      r.out.blockStatus(r.cookie, BASE_ALLOCATION_ID, extents, pairs);
      r.report(0, null);
    } catch (CorruptBlockException e) {
      NbdServer.quietly(() -> events.corruption(export.name(), e));
      r.failQuietly(e);
    } catch (IOException e) {
      r.failQuietly(e);
    }
  }

  /** One request being answered. */
  private final class Request {
    final Session session;
    final ReplyWriter out;
    final NbdCommand cmd; // null: unknown
    final int flags;
    final long cookie;
    final long offset;
    final long length;
    final long started; // System.nanoTime()

    Request(Session session, ReplyWriter out, NbdCommand cmd, int flags, long cookie, long offset, long length,
        long started) {
      this.session = session;
      this.out = out;
      this.cmd = cmd;
      this.flags = flags;
      this.cookie = cookie;
      this.offset = offset;
      this.length = length;
      this.started = started;
    }

    String name() {
      return cmd == null ? "unknown" : cmd.name().toLowerCase(Locale.ROOT);
    }

    void ok() throws IOException {
      out.simple(cookie, null); // allowed after structured replies too: no payload
      report(0, null);
    }

    /** Answers with an error; a simple reply, or an ERROR chunk once structured replies are on. */
    void fail(NbdError error, String message, long bytes) throws IOException {
      if (session.structured()) {
        out.error(cookie, error, message);
      } else {
        out.simple(cookie, error);
      }
      report(bytes, error);
    }

    /** From a request thread: maps an exception to its error; a reply that cannot be sent is dropped. */
    void failQuietly(IOException e) {
      NbdError error = e instanceof CorruptBlockException ? NbdError.EIO
          : e instanceof FailedClosedException || e instanceof SourceClosedException ? NbdError.ESHUTDOWN
          : NbdError.EIO;
      try {
        fail(error, e.getMessage() == null ? error.name() : e.getMessage(), 0);
      } catch (IOException gone) {
        closeQuietly(); // the client is gone: the reading thread sees it and ends the connection
      }
    }

    void report(long bytes, NbdError error) {
      long nanos = System.nanoTime() - started;
      NbdServer.quietly(() -> events.request(session.export().name(), name(), bytes,
          error == null ? null : error.name(), nanos));
    }
  }
}
