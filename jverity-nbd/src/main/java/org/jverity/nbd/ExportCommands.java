package org.jverity.nbd;

import java.io.IOException;
import java.util.Arrays;
import org.jverity.verify.CorruptBlockException;
import org.jverity.verify.FailedClosedException;
import org.jverity.verify.IoClass;
import org.jverity.verify.SourceClosedException;
import org.jverity.verify.VerifiedSource;

/**
 * The commands that read an export, as nbdkit's {@code handle_request} and its {@code
 * send_*_reply}: READ, CACHE and BLOCK_STATUS of one session, with their buffers, and the replies
 * that answer or refuse a request. Knows no socket: replies go to a {@link ReplyWriter}, buffers
 * come from {@link ReadBuffers}, so the handlers run over any stream and any {@link
 * VerifiedSource}. Every byte sent in a data reply has verified; a block that fails gets EIO for
 * that request only. Thread-safe as far as its parts are: requests of one connection run at once,
 * and the writer keeps their replies whole.
 */
final class ExportCommands {
  /** Bytes verified and sent per OFFSET_DATA chunk of a structured READ. */
  static final int PIECE = 1 << 20;

  /** Data blocks BLOCK_STATUS looks at per request: the client asks again for the rest. */
  private static final int MAX_STATUS_BLOCKS = 1 << 16;

  private final Session session;
  private final Export export;
  private final ReplyWriter out;
  private final ReadBuffers buffers;
  private final ServerLimits limits;
  private final NbdEvents events;
  private final Runnable clientGone; // a reply could not be sent: close the connection

  ExportCommands(
      Session session,
      ReplyWriter out,
      ReadBuffers buffers,
      ServerLimits limits,
      NbdEvents events,
      Runnable clientGone) {
    this.session = session;
    this.export = session.export();
    this.out = out;
    this.buffers = buffers;
    this.limits = limits;
    this.events = events;
    this.clientGone = clientGone;
  }

  /**
   * A buffer of one piece and a header for a READ served on the reading thread, to give back after
   * the reply; null when the request needs more (a simple reply, or a structured one with DF, of
   * more than a piece is read whole into a buffer of its own). Never both: a request that held this
   * one while it waited for its own could wait for ever, its own buffer keeping the room it needs
   * (a 32 MiB read with DF takes the whole read-buffer budget).
   */
  byte[] inlineBuffer(RequestHeader h) {
    int size = PIECE + ReplyWriter.DATA_CHUNK_HEADER;
    return replyBufferLength(h) > size ? null : buffers.take(size);
  }

  void giveBuffer(byte[] b) {
    buffers.give(b);
  }

  /** Bytes of the buffer {@link #read} reads {@code h} into: its reply header, then a piece. */
  private int replyBufferLength(RequestHeader h) {
    int length = (int) h.length(); // <= max request length
    boolean structured = session.structured();
    int piece = !structured || h.has(Nbd.CMD_FLAG_DF) ? length : Math.min(length, PIECE);
    return (structured ? ReplyWriter.DATA_CHUNK_HEADER : ReplyWriter.SIMPLE_HEADER) + piece;
  }

  /**
   * READ: verified bytes only. Simple replies: the whole range verifies before the header goes out,
   * else EIO and no data. Structured: pieces are verified and sent as OFFSET_DATA chunks; at a
   * block that fails, the verified bytes before it go out and an ERROR_OFFSET names its offset
   * (with DF, one chunk: the whole range first).
   *
   * @param reusable a buffer from {@link #inlineBuffer}, or null: the read takes its own
   * @param started {@link System#nanoTime()} when the request was read
   */
  void read(RequestHeader h, long started, byte[] reusable) {
    int length = (int) h.length(); // <= max request length
    boolean structured = session.structured();
    int header = structured ? ReplyWriter.DATA_CHUNK_HEADER : ReplyWriter.SIMPLE_HEADER;
    int needed = replyBufferLength(h);
    int piece = needed - header;
    boolean own = reusable == null || reusable.length < needed;
    // The data lands after room for its reply header: header and data leave in one write.
    byte[] buf = own ? buffers.take(needed) : reusable;
    long cookie = h.cookie();
    try {
      long sent = 0;
      for (long pos = h.offset(), end = h.offset() + length; pos < end; ) {
        int n = (int) Math.min(piece, end - pos);
        try {
          export.source().read(pos, buf, header, n, export.ioClass());
        } catch (CorruptBlockException e) {
          NbdServer.quietly(() -> events.corruption(export.name(), e));
          long bad = e.dataBlock() < 0 ? pos : Math.max(pos, e.dataBlock() * export.blockSize());
          if (structured) {
            int good = (int) (bad - pos); // verified bytes before the block that failed
            if (good > 0) {
              out.offsetDataInPlace(cookie, false, pos, buf, good);
              sent += good;
            }
            out.errorOffset(cookie, NbdError.EIO, "verity: " + e.getMessage(), bad);
          } else {
            out.simple(cookie, NbdError.EIO);
          }
          report(h, started, sent, NbdError.EIO);
          return;
        }
        if (structured) {
          out.offsetDataInPlace(cookie, pos + n == end, pos, buf, n);
        } else {
          out.simpleInPlace(cookie, buf, n); // piece == length: this is the whole reply
        }
        sent += n;
        pos += n;
      }
      report(h, started, sent, null);
    } catch (IOException e) {
      failQuietly(h, started, e);
    } finally {
      if (own) {
        buffers.give(buf);
      }
    }
  }

  /** CACHE: reads and verifies the range at the idle class, so later reads find the tree cached. */
  void cache(RequestHeader h, long started) {
    int piece = (int) Math.min(h.length(), PIECE);
    long end =
        h.offset() + Math.min(h.length(), limits.maxRequestLength()); // a hint: past this, nothing
    byte[] buf = buffers.take(piece);
    try {
      for (long pos = h.offset(); pos < end; pos += piece) {
        export.source().read(pos, buf, 0, (int) Math.min(piece, end - pos), IoClass.IDLE);
      }
      ok(h, started);
    } catch (CorruptBlockException e) {
      NbdServer.quietly(() -> events.corruption(export.name(), e));
      failQuietly(h, started, e);
    } catch (IOException e) {
      failQuietly(h, started, e);
    } finally {
      buffers.give(buf);
    }
  }

  /**
   * BLOCK_STATUS for {@code base:allocation}, on every export as nbdkit offers it: blocks whose
   * trusted digest is the zero block's read as zeros (or fail, never as other bytes), so they are
   * ZERO and copies skip them; under ignore_zero_blocks they are not read at all, so HOLE|ZERO. The
   * rest is data (0). At most {@link #MAX_STATUS_BLOCKS} blocks are looked at: the client asks
   * again for the rest.
   */
  void blockStatus(RequestHeader h, long started) {
    try {
      VerifiedSource source = export.source();
      int zero = source.ignoresZeroBlocks() ? Nbd.STATE_HOLE | Nbd.STATE_ZERO : Nbd.STATE_ZERO;
      long end = h.offset() + h.length();
      int bs = export.blockSize();
      boolean one = h.has(Nbd.CMD_FLAG_REQ_ONE);
      int[] extents = new int[64];
      int pairs = 0;
      long pos = h.offset();
      for (int looked = 0; pos < end && looked < MAX_STATUS_BLOCKS; looked++) {
        long block = pos / bs;
        int state = source.isZeroBlock(block) ? zero : 0;
        long to = Math.min(end, (block + 1) * bs);
        if (pairs > 0 && extents[2 * pairs - 1] == state) {
          extents[2 * pairs - 2] += (int) (to - pos); // extends the run: the total stays < 2^32
        } else {
          if (one && pairs == 1) {
            break;
          }
          if (2 * pairs == extents.length) {
            extents = Arrays.copyOf(extents, 2 * extents.length);
          }
          extents[2 * pairs] = (int) (to - pos);
          extents[2 * pairs + 1] = state;
          pairs++;
        }
        pos = to;
      }
      out.blockStatus(h.cookie(), Nbd.BASE_ALLOCATION_ID, extents, pairs);
      report(h, started, 0, null);
    } catch (CorruptBlockException e) {
      NbdServer.quietly(() -> events.corruption(export.name(), e));
      failQuietly(h, started, e);
    } catch (IOException e) {
      failQuietly(h, started, e);
    }
  }

  /** Answers success with no payload (allowed after structured replies too). */
  void ok(RequestHeader h, long started) throws IOException {
    out.simple(h.cookie(), null);
    report(h, started, 0, null);
  }

  /** Answers with an error; a simple reply, or an ERROR chunk once structured replies are on. */
  void fail(RequestHeader h, long started, NbdError error, String message, long bytes)
      throws IOException {
    if (session.structured()) {
      out.error(h.cookie(), error, message);
    } else {
      out.simple(h.cookie(), error);
    }
    report(h, started, bytes, error);
  }

  void refuse(RequestHeader h, long started, Refusal why) throws IOException {
    fail(h, started, why.error(), why.message(), 0);
  }

  /**
   * From a request thread: maps an exception to its error; a reply that cannot be sent is dropped.
   */
  private void failQuietly(RequestHeader h, long started, IOException e) {
    NbdError error =
        e instanceof CorruptBlockException
            ? NbdError.EIO
            : e instanceof FailedClosedException || e instanceof SourceClosedException
                ? NbdError.ESHUTDOWN
                : NbdError.EIO;
    try {
      fail(h, started, error, e.getMessage() == null ? error.name() : e.getMessage(), 0);
    } catch (IOException gone) {
      clientGone.run(); // the client is gone: the reading thread sees it and ends the connection
    }
  }

  private void report(RequestHeader h, long started, long bytes, NbdError error) {
    long nanos = System.nanoTime() - started;
    NbdServer.quietly(
        () ->
            events.request(
                export.name(), h.commandName(), bytes, error == null ? null : error.name(), nanos));
  }
}
