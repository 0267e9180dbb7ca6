package org.jverity.verify;

import java.io.IOException;
import java.io.InterruptedIOException;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLongArray;
import java.util.concurrent.atomic.AtomicReferenceArray;
import java.util.concurrent.atomic.LongAdder;

/**
 * Decides where each verified read is hashed, as dm-verity does since {@code try_verify_in_tasklet}
 * and {@code use_bh_bytes}: a small request whose hash blocks are all cached is verified inline on
 * the calling thread (hashing 4 KiB costs ~2.5 µs, less than a hand-off); a larger one, or one that
 * meets a cache miss, goes to the {@link HashingPool}. An inline attempt that stops at a miss hands
 * over only the blocks it has not verified. Inline work is bounded by a time budget (the kernel's
 * {@code need_resched} idea). Large requests are cut into pieces hashed on all cores, the calling
 * thread hashing one of them.
 *
 * <p>Ownership: every exit of {@link #read} — success, corruption, an I/O error, an interrupt —
 * waits until every piece it started has finished, so the caller's array is never written after
 * {@code read} returns or throws. An interrupt cancels the pieces not yet run and is reported as
 * {@link InterruptedIOException} with the interrupt flag kept; it never closes a device, so other
 * readers go on. {@link #close()} refuses new reads ({@link SourceClosedException}) and waits for
 * those in flight; the pool is shared and not closed here.
 *
 * <p>Thread-safe. Limits, budget and prefetch cluster may be changed while reads run.
 */
public final class VerificationScheduler implements VerifiedSource, AutoCloseable {
  /** The kernel's default {@code prefetch_cluster}: 256 KiB of data. */
  public static final long DEFAULT_PREFETCH_CLUSTER = 256 << 10;
  /** Default inline budget: 9 ms of hashing per 10 ms window. */
  public static final long DEFAULT_BUDGET_NANOS = 9_000_000;
  public static final long DEFAULT_WINDOW_NANOS = 10_000_000;
  /** Smallest piece a large request is cut into for the pool: below it a hand-off costs more than it saves. */
  private static final int MIN_PIECE = 64 << 10;

  private final VerifiedReader reader;
  private final HashingPool pool;
  private final Prefetcher prefetcher;
  private final AtomicLongArray inlineLimit = new AtomicLongArray(IoClass.values().length); // bytes
  private final InlineBudget budget = new InlineBudget(DEFAULT_BUDGET_NANOS, DEFAULT_WINDOW_NANOS);
  private final AtomicInteger inFlight = new AtomicInteger(); // reads inside read()
  private volatile boolean closed;

  private final LongAdder inlineRequests = new LongAdder();
  private final LongAdder pooledRequests = new LongAdder();
  private final LongAdder fallbacks = new LongAdder();
  private final LongAdder pieces = new LongAdder();

  /** A scheduler over {@code reader} hashing on the process-wide {@link HashingPool#shared()}. */
  public VerificationScheduler(VerifiedReader reader) {
    this(reader, HashingPool.shared());
  }

  public VerificationScheduler(VerifiedReader reader, HashingPool pool) {
    this.reader = reader;
    this.pool = pool;
    this.prefetcher = new Prefetcher(reader, DEFAULT_PREFETCH_CLUSTER);
    for (IoClass c : IoClass.values()) {
      inlineLimit.set(c.ordinal(), c.defaultInlineLimit());
    }
  }

  public VerifiedReader reader() {
    return reader;
  }

  @Override
  public long size() {
    return reader.size();
  }

  /** Sets the largest request of class {@code c} verified inline, in bytes; 0 sends all to the pool. */
  public void setInlineLimit(IoClass c, long bytes) {
    if (bytes < 0) {
      throw new IllegalArgumentException("inline limit: " + bytes + " (expected: >= 0)");
    }
    inlineLimit.set(c.ordinal(), bytes);
  }

  public long inlineLimit(IoClass c) {
    return inlineLimit.get(c.ordinal());
  }

  /** Reading threads may hash inline for {@code budget} nanoseconds per {@code window} nanoseconds. */
  public void setInlineBudget(long budget, long window) {
    this.budget.set(budget, window);
  }

  public void setPrefetchCluster(long bytes) {
    prefetcher.setClusterBytes(bytes);
  }

  /** Reads as {@link IoClass#BEST_EFFORT}. */
  @Override
  public void read(long offset, byte[] dst, int dstOffset, int length) throws IOException {
    read(offset, dst, dstOffset, length, IoClass.BEST_EFFORT);
  }

  /**
   * Reads {@code length} verified bytes at {@code offset} into {@code dst[dstOffset...]}, hashing
   * inline or on the pool as described above; returns when they are all verified. Arguments are
   * checked before any work (and any prefetch) is started.
   */
  public void read(long offset, byte[] dst, int dstOffset, int length, IoClass ioClass) throws IOException {
    VerifiedSource.checkRange(reader.size(), offset, dst, dstOffset, length);
    inFlight.incrementAndGet();
    try {
      if (closed) {
        throw new SourceClosedException("verification scheduler of " + reader.description());
      }
      prefetcher.request(offset, length);
      int done = 0;
      if (length <= inlineLimit.get(ioClass.ordinal()) && budget.left()) {
        long t0 = System.nanoTime();
        done = reader.tryReadInline(offset, dst, dstOffset, length);
        budget.charge(System.nanoTime() - t0);
        if (done == length) {
          inlineRequests.increment();
          return;
        }
        fallbacks.increment(); // what was verified stays verified; only the rest moves
      }
      pooledRequests.increment();
      onPool(offset + done, dst, dstOffset + done, length - done);
    } finally {
      if (inFlight.decrementAndGet() == 0 && closed) {
        synchronized (inFlight) {
          inFlight.notifyAll();
        }
      }
    }
  }

  /**
   * Cuts the range into block-aligned pieces, about one per pool thread; the pool hashes all but
   * the first, which the calling thread hashes itself rather than sit idle. A range that is one
   * piece is handed off whole: the caller waits, as a submitter of I/O does.
   */
  private void onPool(long offset, byte[] dst, int dstOffset, int length) throws IOException {
    int bs = reader.layout().dataBlockSize();
    int wanted = Math.max(MIN_PIECE, Math.ceilDiv(length, pool.threads()));
    int piece = Math.max(bs, wanted - wanted % bs);
    long end = offset + length;
    long firstEnd = Math.min(end, (offset / bs) * bs + piece); // block-aligned end, > offset
    int count = 1 + (int) Math.ceilDiv(end - firstEnd, piece);
    Pieces set = new Pieces(count);
    if (count == 1) {
      submit(set, 0, offset, dst, dstOffset, length);
    } else {
      long pos = firstEnd;
      for (int i = 1; i < count; i++) {
        long pieceEnd = Math.min(end, pos + piece);
        submit(set, i, pos, dst, (int) (dstOffset + pos - offset), (int) (pieceEnd - pos));
        pos = pieceEnd;
      }
      set.run(0, reader, offset, dst, dstOffset, (int) (firstEnd - offset));
    }
    set.awaitAndRethrow();
  }

  private void submit(Pieces set, int i, long offset, byte[] dst, int dstOffset, int length) {
    pieces.increment();
    try {
      pool.execute(() -> set.run(i, reader, offset, dst, dstOffset, length));
    } catch (RejectedExecutionException e) {
      set.run(i, reader, offset, dst, dstOffset, length); // pool closed by its owner: hash here
    }
  }

  /** The pieces of one request: each one's failure, and a count of those still running. */
  private static final class Pieces {
    private final CountDownLatch running;
    private final AtomicReferenceArray<Throwable> failures; // by piece, lowest offset first
    private volatile boolean cancelled;

    Pieces(int count) {
      running = new CountDownLatch(count);
      failures = new AtomicReferenceArray<>(count);
    }

    void run(int i, VerifiedReader reader, long offset, byte[] dst, int dstOffset, int length) {
      try {
        if (cancelled) {
          throw new InterruptedIOException("read cancelled");
        }
        reader.readPiece(offset, dst, dstOffset, length, () -> cancelled);
      } catch (Throwable t) {
        failures.set(i, t);
      } finally {
        running.countDown();
      }
    }

    /**
     * Waits for every piece, even when interrupted (an interrupt cancels the pieces not yet
     * started and shortens the rest), then throws the lowest piece's failure, so the report does
     * not depend on timing.
     */
    void awaitAndRethrow() throws IOException {
      boolean interrupted = false;
      while (true) {
        try {
          running.await();
          break;
        } catch (InterruptedException e) {
          interrupted = true;
          cancelled = true;
        }
      }
      if (interrupted) {
        Thread.currentThread().interrupt();
        throw new InterruptedIOException("interrupted while verifying");
      }
      for (int i = 0; i < failures.length(); i++) {
        Throwable t = failures.get(i);
        if (t instanceof IOException io) {
          throw io;
        } else if (t instanceof RuntimeException r) {
          throw r;
        } else if (t instanceof Error err) {
          throw err;
        } else if (t != null) {
          throw new IOException(t);
        }
      }
    }
  }

  /** Requests verified entirely inline. */
  public long inlineRequests() {
    return inlineRequests.sum();
  }

  /** Requests (or their unverified rest) that took the pool path. */
  public long pooledRequests() {
    return pooledRequests.sum();
  }

  /** Inline attempts that met a cache miss (or a mismatch) and handed the rest to the pool. */
  public long fallbacks() {
    return fallbacks.sum();
  }

  /** Pieces handed to the pool. */
  public long pieces() {
    return pieces.sum();
  }

  /** Hash block loads the prefetcher started. */
  public long prefetches() {
    return prefetcher.issued();
  }

  /** Prefetch loads that failed (the reads that needed those blocks report the error). */
  public long failedPrefetches() {
    return prefetcher.failed();
  }

  /**
   * Refuses new reads and waits for those in flight and for running prefetches. Neither the reader
   * nor the pool is closed: they may be shared.
   */
  @Override
  public void close() {
    closed = true;
    boolean interrupted = false;
    synchronized (inFlight) {
      while (inFlight.get() > 0) {
        try {
          inFlight.wait(10);
        } catch (InterruptedException e) {
          interrupted = true;
        }
      }
    }
    prefetcher.close();
    if (interrupted) {
      Thread.currentThread().interrupt();
    }
  }
}
