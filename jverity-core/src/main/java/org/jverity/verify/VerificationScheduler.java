package org.jverity.verify;

import java.io.IOException;
import java.io.InterruptedIOException;
import java.util.Arrays;
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
 * meets a cache miss, goes to the {@link HashingPool}. Whether they are cached is asked of the
 * {@link Prefetcher}, which plans what every read needs, before any data is read: a cold read goes
 * to the pool at once, its data and hash blocks fetched together. An inline attempt that stops at a
 * miss hands over only the blocks it has not verified. Inline work is bounded by a time budget (the
 * kernel's {@code need_resched} idea). Large requests are cut into pieces hashed on all cores, the
 * calling thread hashing one of them.
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

  /**
   * Smallest piece a large request is cut into: hashing it takes ~25 µs, about what a pool thread
   * takes to wake, so the caller has work while it does, and a late piece delays the end little.
   */
  private static final int MIN_PIECE = 32 << 10;

  private final VerifiedReader reader;
  private final HashingPool pool;
  private final Prefetcher prefetcher;
  private final AtomicLongArray inlineLimit = new AtomicLongArray(IoClass.values().length); // bytes
  private final InlineBudget budget = new InlineBudget(DEFAULT_BUDGET_NANOS, DEFAULT_WINDOW_NANOS);
  // Reads inside read(), striped so that readers on different cores do not share a line. Exact
  // enough for close(): a read increments then reads `closed`, close writes `closed` then sums.
  private final LongAdder inFlight = new LongAdder();
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

  @Override
  public int blockSize() {
    return reader.blockSize();
  }

  @Override
  public boolean ignoresZeroBlocks() {
    return reader.ignoresZeroBlocks();
  }

  @Override
  public boolean isZeroBlock(long block) throws IOException {
    return reader.isZeroBlock(block);
  }

  /**
   * The reader's counters with this scheduler's: how many requests verified inline or on the pool.
   */
  @Override
  public SourceStats stats() {
    SourceStats r = reader.stats();
    return new SourceStats(
        r.corruptions(),
        r.repaired(),
        r.failedClosed(),
        inlineRequests(),
        pooledRequests(),
        fallbacks(),
        r.cache());
  }

  /**
   * Sets the largest request of class {@code c} verified inline, in bytes; 0 sends all to the pool.
   */
  public void setInlineLimit(IoClass c, long bytes) {
    if (bytes < 0) {
      throw new IllegalArgumentException("inline limit: " + bytes + " (expected: >= 0)");
    }
    inlineLimit.set(c.ordinal(), bytes);
  }

  public long inlineLimit(IoClass c) {
    return inlineLimit.get(c.ordinal());
  }

  /**
   * Reading threads may hash inline for {@code budget} nanoseconds per {@code window} nanoseconds.
   */
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
  @Override
  public void read(long offset, byte[] dst, int dstOffset, int length, IoClass ioClass)
      throws IOException {
    Requests.checkRange(reader.size(), offset, dst, dstOffset, length);
    inFlight.increment();
    try {
      if (closed) {
        throw new SourceClosedException("verification scheduler of " + reader.description());
      }
      int done = 0;
      if (length <= inlineLimit.get(ioClass.ordinal())
          && budget.left()
          && prefetcher.pathsCached(offset, length)) {
        long t0 = System.nanoTime();
        done = reader.tryReadInline(offset, dst, dstOffset, length);
        budget.charge(System.nanoTime() - t0);
        if (done == length) {
          inlineRequests.increment();
          prefetcher.stream(
              offset, length); // every hash block was cached: only read ahead of streams
          return;
        }
        fallbacks.increment(); // what was verified stays verified; only the rest moves
      }
      prefetcher.forPool(offset, length, offset + done); // its loads, and its data in one go
      pooledRequests.increment();
      onPool(offset + done, dst, dstOffset + done, length - done);
    } finally {
      inFlight.decrement();
      if (closed) {
        synchronized (inFlight) {
          inFlight.notifyAll();
        }
      }
    }
  }

  /**
   * Cuts the range into block-aligned pieces of at least {@link #MIN_PIECE}, about four per pool
   * thread, and lets the pool and the calling thread take them from one counter: the caller hashes
   * pieces rather than sit idle, and a pool thread that wakes late takes fewer, so one slow
   * hand-off does not hold up the request. A range that is one piece is handed off whole: the
   * caller waits, as a submitter of I/O does.
   */
  private void onPool(long offset, byte[] dst, int dstOffset, int length) throws IOException {
    int bs = reader.layout().dataBlockSize();
    int wanted = Math.max(MIN_PIECE, Math.ceilDiv(length, 4 * pool.threads()));
    int piece = Math.max(bs, wanted - wanted % bs);
    long firstEnd =
        Math.min(offset + length, (offset / bs) * bs + piece); // block-aligned, > offset
    int count = 1 + (int) Math.ceilDiv(offset + length - firstEnd, piece);
    Pieces set = new Pieces(reader, offset, dst, dstOffset, length, firstEnd, piece, count);
    pieces.add(count);
    if (count == 1) {
      submit(set);
    } else {
      // The caller works too: one helper fewer than the pool has threads keeps one thread per
      // core (with as many threads as cores, three threads on two cores only trade places).
      int helpers = Math.min(count - 1, Math.max(1, pool.threads() - 1));
      for (int i = 0; i < helpers; i++) {
        submit(set);
      }
      set.work();
      set.spinUntilFinished();
    }
    set.awaitAndRethrow();
  }

  private void submit(Pieces set) {
    try {
      pool.execute(set::work);
    } catch (RejectedExecutionException e) {
      set.work(); // pool closed by its owner: hash here
    }
  }

  /**
   * The pieces of one request, taken in order from a counter by whoever works on it: each one's
   * failure, and a count of those not yet finished. A piece is finished when it ran or, once the
   * request is cancelled, was skipped without touching the array.
   */
  private static final class Pieces {
    private static final long SPIN_NANOS = 50_000;

    private final VerifiedReader reader;
    private final long offset; // of the request, bytes
    // Dropped once every piece has finished: helper tasks still queued on a busy pool hold this set
    // after the request returned, and must not keep its buffer (memory would grow with clients).
    private byte[] dst;
    private final int dstOffset;
    private final long end; // of the request, bytes
    private final long firstEnd; // end of piece 0 (the first may be short: block alignment)
    private final int piece; // bytes per piece after the first
    private final int count;
    private final AtomicInteger next = new AtomicInteger(); // the next piece to take
    private final CountDownLatch unfinished;
    private final AtomicReferenceArray<Throwable> failures; // by piece, lowest offset first
    private volatile boolean cancelled;

    Pieces(
        VerifiedReader reader,
        long offset,
        byte[] dst,
        int dstOffset,
        int length,
        long firstEnd,
        int piece,
        int count) {
      this.reader = reader;
      this.offset = offset;
      this.dst = dst;
      this.dstOffset = dstOffset;
      this.end = offset + length;
      this.firstEnd = firstEnd;
      this.piece = piece;
      this.count = count;
      this.unfinished = new CountDownLatch(count);
      this.failures = new AtomicReferenceArray<>(count);
    }

    /** Takes and runs pieces until none is left. */
    void work() {
      for (int i = next.getAndIncrement(); i < count; i = next.getAndIncrement()) {
        long from = i == 0 ? offset : firstEnd + (long) (i - 1) * piece;
        long to = i == 0 ? firstEnd : Math.min(end, from + piece);
        try {
          if (cancelled) {
            // Not read: zeroed, as a piece stopped midway is (VerifiedSource's contract)
            Arrays.fill(
                dst, (int) (dstOffset + from - offset), (int) (dstOffset + to - offset), (byte) 0);
            throw new InterruptedIOException("read cancelled");
          }
          reader.readPiece(
              from, dst, (int) (dstOffset + from - offset), (int) (to - from), () -> cancelled);
        } catch (Throwable t) {
          failures.set(i, t);
        } finally {
          unfinished.countDown();
        }
      }
    }

    /**
     * Spins, at most {@link #SPIN_NANOS}, while the helpers finish the pieces they took: the caller
     * has run out of pieces, so the rest is at most one piece's hashing on each helper (tens of
     * microseconds), and parking would add a wake-up of about as long on top (a one-reader 512 KiB
     * stream waited for it on every request). The core spun on is the caller's own, idle otherwise;
     * past the bound it parks as before. Measured (bench/read.sh's cases, two runs each way,
     * interleaved): one 512 KiB reader 1.82-1.97x one core's one-stream limit without the spin,
     * 2.29x with it; 128 KiB 1.35-1.41x and 1.57-1.64x; 4 KiB reads as they were.
     */
    void spinUntilFinished() {
      long deadline = System.nanoTime() + SPIN_NANOS;
      while (unfinished.getCount() != 0 && System.nanoTime() - deadline < 0) {
        Thread.onSpinWait();
      }
    }

    /**
     * Waits for every piece, even when interrupted (an interrupt cancels the pieces not yet started
     * and shortens the rest), then throws the lowest piece's failure, so the report does not depend
     * on timing.
     */
    void awaitAndRethrow() throws IOException {
      boolean interrupted = false;
      while (true) {
        try {
          unfinished.await();
          dst = null; // no piece runs any more: a piece reads it only before counting down
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

  /** Pieces the pool path cut requests into (the pool and the caller take them). */
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
      while (inFlight.sum() > 0) {
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
