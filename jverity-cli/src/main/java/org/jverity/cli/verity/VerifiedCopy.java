package org.jverity.cli.verity;

import java.io.IOException;
import java.io.InterruptedIOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.channels.WritableByteChannel;
import java.util.ArrayDeque;
import java.util.concurrent.CancellationException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.jverity.tree.ProgressListener;
import org.jverity.verify.CorruptBlockException;
import org.jverity.verify.IoClass;
import org.jverity.verify.VerificationScheduler;

/**
 * Copies verified bytes of a range to a channel, writing one piece while the next is verified.
 *
 * <p>Why: the copy used to verify a piece, then write it, then verify the next. While the main
 * thread wrote, the hashing threads sat idle, and a write is not free: into a tmpfs file it is a
 * copy into newly allocated pages, about 0.6 s of CPU per GiB (what {@code cp} of 1 GiB costs
 * there). Written by a thread of its own, it overlaps the hashing of the next piece when a core is
 * free for it. On a 2-core machine the hashing keeps both cores busy, so there the total is the
 * same either way: 1 GiB read to tmpfs takes the time to /dev/null plus that of {@code cp} (2.6 s
 * against 2.0 s, cp 0.65 s). Writes go through a {@link WritableByteChannel} straight from the
 * piece's array, with no buffering stream in between: a piece is already large, and nothing is
 * flushed or synced on the way.
 *
 * <p>The writer is the slower stage (into tmpfs a write costs about what the hashing of the same
 * bytes costs on both cores), so the copy keeps {@link #DEPTH} pieces between the two: the verifier
 * runs ahead while a write is slow, and the writer has a piece to take when the verifier stalls,
 * with neither waiting for the other piece by piece as with two buffers. Memory: DEPTH pieces.
 *
 * <p>Pieces end on block boundaries. When a piece fails at a block, the verified bytes before that
 * block are written, every earlier write completes, and only then is the error thrown. Not
 * thread-safe: one copy per instance.
 */
final class VerifiedCopy implements AutoCloseable {
  /** Bytes verified (and then written) at a time: large enough to keep every core hashing. */
  static final int PIECE = 1 << 20;

  /** Pieces verified but not yet written, at most, plus the one being verified. */
  static final int DEPTH = 4;

  private final VerificationScheduler scheduler;
  private final WritableByteChannel out;
  private final ProgressListener progress;
  private final ExecutorService writer =
      Executors.newSingleThreadExecutor(
          Thread.ofPlatform().daemon().name("jverity-writer").factory());
  // A ring: the main thread verifies into one buffer while the writer writes the others, in order.
  private final byte[][] buffers = new byte[DEPTH][];
  private final ArrayDeque<Future<?>> pending = new ArrayDeque<>(); // queued writes, oldest first

  VerifiedCopy(
      VerificationScheduler scheduler, WritableByteChannel out, ProgressListener progress) {
    this.scheduler = scheduler;
    this.out = out;
    this.progress = progress;
  }

  /** Copies bytes {@code [from, end)}; returns once all of them are written. */
  void copy(long from, long end) throws IOException {
    int bs = scheduler.reader().layout().dataBlockSize();
    long pos = from;
    for (int i = 0; pos < end; i = (i + 1) % DEPTH) {
      if (pending.size() == DEPTH) {
        awaitOldest(); // buffers[i]'s previous write: the oldest queued
      }
      if (buffers[i] == null) { // allocated as used: a short read takes one
        buffers[i] = new byte[(int) Math.min(PIECE, end - from + bs)];
      }
      byte[] buf = buffers[i];
      long pieceEnd = Math.min(end, (pos / bs) * bs + PIECE); // block-aligned end, > pos
      int n = (int) (pieceEnd - pos); // <= PIECE
      try {
        scheduler.read(pos, buf, 0, n, IoClass.BEST_EFFORT); // hashed on every core
      } catch (CorruptBlockException e) {
        if (e.dataBlock() >= 0) {
          int good =
              (int)
                  (Math.max(pos, e.dataBlock() * bs)
                      - pos); // verified bytes before the failed block
          write(buf, good);
        }
        drain();
        throw e;
      }
      write(buf, n);
      pos = pieceEnd;
    }
    drain();
  }

  /** Queues a write of {@code buf[0, n)} after those queued; the writer takes them in order. */
  private void write(byte[] buf, int n) {
    pending.add(
        writer.submit(
            () -> {
              ByteBuffer b = ByteBuffer.wrap(buf, 0, n);
              try {
                while (b.hasRemaining()) {
                  out.write(b);
                }
              } catch (IOException e) {
                throw new UncheckedIOException(e);
              }
              progress.advanced(n);
            }));
  }

  /** Waits for every queued write, throwing the first failure. */
  private void drain() throws IOException {
    while (!pending.isEmpty()) {
      awaitOldest();
    }
  }

  /**
   * Waits for the oldest queued write, throwing its failure (the later ones are then waited for).
   */
  private void awaitOldest() throws IOException {
    Future<?> f = pending.remove();
    try {
      f.get();
    } catch (ExecutionException e) {
      waitForTheRest();
      if (e.getCause() instanceof UncheckedIOException u) {
        throw u.getCause();
      }
      throw new IOException("write failed", e.getCause());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new InterruptedIOException("interrupted while writing");
    }
  }

  /**
   * After a failed write: the later queued writes run to their end (the first failure is the one
   * reported), so that none is left writing a buffer the caller may reuse.
   */
  private void waitForTheRest() {
    while (!pending.isEmpty()) {
      try {
        pending.remove().get();
      } catch (ExecutionException | CancellationException later) {
        // the first failure is reported
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return; // close() still waits for the writer
      }
    }
  }

  /** Stops the writer; a write still in flight (after a failure) is waited for, not cut off. */
  @Override
  public void close() {
    writer.close();
  }
}
