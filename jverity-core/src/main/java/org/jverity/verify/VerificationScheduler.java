package org.jverity.verify;

import java.io.IOException;
import java.io.InterruptedIOException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicLongArray;
import java.util.concurrent.atomic.LongAdder;

/**
 * Decides where each verified read is hashed, as dm-verity does since {@code try_verify_in_tasklet}
 * and {@code use_bh_bytes}: a small request whose hash blocks are all cached is verified inline
 * on the calling thread (hashing 4 KiB costs ~2.5 µs, less than a hand-off); a larger one, or one
 * that meets a cache miss, goes to a pool of hashing threads, one per core. An inline attempt that
 * stops at a miss hands over only the blocks it has not verified. Inline work is bounded by a time
 * budget per thread (the kernel's {@code need_resched} idea): past it, requests go to the pool
 * until the budget refills. Large requests are cut into pieces hashed on all cores.
 *
 * <p>Thread-safe. Limits, budget and prefetch cluster may be changed while reads run. The pool is
 * owned and closed by {@link #close()}; callers only wait.
 */
public final class VerificationScheduler implements AutoCloseable {
  /** The kernel's default {@code prefetch_cluster}: 256 KiB of data. */
  public static final long DEFAULT_PREFETCH_CLUSTER = 256 << 10;
  /** Default inline budget: 9 ms of hashing per 10 ms window on each thread. */
  public static final long DEFAULT_BUDGET_NANOS = 9_000_000;
  public static final long DEFAULT_WINDOW_NANOS = 10_000_000;
  /** Smallest piece a large request is cut into for the pool. */
  private static final int MIN_PIECE = 64 << 10;

  private final VerifiedReader reader;
  private final ExecutorService pool;
  private final int poolThreads;
  private final Prefetcher prefetcher;
  private final AtomicLongArray inlineLimit = new AtomicLongArray(IoClass.values().length); // bytes
  private volatile long budgetNanos = DEFAULT_BUDGET_NANOS;
  private volatile long windowNanos = DEFAULT_WINDOW_NANOS;
  private final ThreadLocal<long[]> budget = ThreadLocal.withInitial(() -> new long[2]); // {window start, used}

  private final LongAdder inlineRequests = new LongAdder();
  private final LongAdder pooledRequests = new LongAdder();
  private final LongAdder fallbacks = new LongAdder();
  private final LongAdder pieces = new LongAdder();

  /** A scheduler hashing on one pool thread per core, with the kernel's default limits. */
  public VerificationScheduler(VerifiedReader reader) {
    this(reader, Runtime.getRuntime().availableProcessors());
  }

  public VerificationScheduler(VerifiedReader reader, int poolThreads) {
    if (poolThreads < 1) {
      throw new IllegalArgumentException("pool threads: " + poolThreads + " (expected: at least 1)");
    }
    this.reader = reader;
    this.poolThreads = poolThreads;
    this.pool = Executors.newFixedThreadPool(poolThreads,
        Thread.ofPlatform().name("jverity-verify-", 0).daemon().factory());
    this.prefetcher = new Prefetcher(reader, DEFAULT_PREFETCH_CLUSTER);
    for (IoClass c : IoClass.values()) {
      inlineLimit.set(c.ordinal(), c.defaultInlineLimit());
    }
  }

  public VerifiedReader reader() {
    return reader;
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

  /** Each thread may hash inline for {@code budget} nanoseconds per {@code window} nanoseconds. */
  public void setInlineBudget(long budget, long window) {
    if (budget < 0 || window <= 0) {
      throw new IllegalArgumentException("inline budget: " + budget + " ns per " + window + " ns");
    }
    budgetNanos = budget;
    windowNanos = window;
  }

  public void setPrefetchCluster(long bytes) {
    prefetcher.setClusterBytes(bytes);
  }

  /**
   * Reads {@code length} verified bytes at {@code offset} into {@code dst[dstOffset...]}, hashing
   * inline or on the pool as described above; returns when they are all verified.
   *
   * @throws CorruptBlockException for the lowest block that did not verify (mode EIO and the
   *     fail-closed modes), as {@link VerifiedReader#read}
   */
  public void read(long offset, byte[] dst, int dstOffset, int length, IoClass ioClass) throws IOException {
    prefetcher.request(offset, length);
    int done = 0;
    if (length <= inlineLimit.get(ioClass.ordinal()) && budgetLeft()) {
      long t0 = System.nanoTime();
      done = reader.tryReadInline(offset, dst, dstOffset, length);
      charge(System.nanoTime() - t0);
      if (done == length) {
        inlineRequests.increment();
        return;
      }
      fallbacks.increment(); // what was verified stays verified; only the rest moves
    }
    pooledRequests.increment();
    onPool(offset + done, dst, dstOffset + done, length - done);
  }

  /**
   * Cuts the range into block-aligned pieces, about one per pool thread; the pool hashes all but
   * the first, which the calling thread hashes itself rather than sit idle waiting.
   */
  private void onPool(long offset, byte[] dst, int dstOffset, int length) throws IOException {
    int bs = reader.params().dataBlockSize();
    int wanted = Math.max(MIN_PIECE, Math.ceilDiv(length, poolThreads));
    int piece = Math.max(bs, wanted - wanted % bs);
    long end = offset + length;
    long firstEnd = Math.min(end, (offset / bs) * bs + piece); // block-aligned end, > offset
    if (firstEnd == end) {
      handOff(offset, dst, dstOffset, length); // one piece: a real hand-off, the caller waits
      return;
    }
    List<Future<?>> futures = new ArrayList<>();
    for (long pos = firstEnd; pos < end; ) {
      long pieceEnd = Math.min(end, pos + piece);
      long from = pos;
      int n = (int) (pieceEnd - pos);
      int at = (int) (dstOffset + pos - offset);
      futures.add(pool.submit(() -> {
        reader.read(from, dst, at, n);
        return null;
      }));
      pieces.increment();
      pos = pieceEnd;
    }
    IOException first = null; // the lowest-offset failure, so the report does not depend on timing
    try {
      pieces.increment();
      reader.read(offset, dst, dstOffset, (int) (firstEnd - offset));
    } catch (IOException e) {
      first = e;
    }
    for (Future<?> f : futures) {
      try {
        f.get();
      } catch (ExecutionException e) {
        if (first == null) {
          first = e.getCause() instanceof IOException io ? io : new IOException(e.getCause());
        }
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        futures.forEach(x -> x.cancel(true));
        throw new InterruptedIOException("interrupted while verifying");
      }
    }
    if (first != null) {
      throw first;
    }
  }

  private void handOff(long offset, byte[] dst, int dstOffset, int length) throws IOException {
    pieces.increment();
    Future<?> f = pool.submit(() -> {
      reader.read(offset, dst, dstOffset, length);
      return null;
    });
    try {
      f.get();
    } catch (ExecutionException e) {
      throw e.getCause() instanceof IOException io ? io : new IOException(e.getCause());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      f.cancel(true);
      throw new InterruptedIOException("interrupted while verifying");
    }
  }

  private boolean budgetLeft() {
    long[] b = budget.get();
    long now = System.nanoTime();
    if (now - b[0] > windowNanos) {
      b[0] = now;
      b[1] = 0;
    }
    return b[1] < budgetNanos;
  }

  private void charge(long nanos) {
    budget.get()[1] += nanos;
  }

  /** Requests verified entirely inline. */
  public long inlineRequests() {
    return inlineRequests.sum();
  }

  /** Requests (or their unverified rest) that took the pool path, cut into pieces. */
  public long pooledRequests() {
    return pooledRequests.sum();
  }

  /** Inline attempts that met a cache miss (or a mismatch) and handed the rest to the pool. */
  public long fallbacks() {
    return fallbacks.sum();
  }

  /** Pieces run on the pool. */
  public long pieces() {
    return pieces.sum();
  }

  /** Hash block loads the prefetcher started. */
  public long prefetches() {
    return prefetcher.issued();
  }

  @Override
  public void close() {
    prefetcher.close();
    pool.shutdownNow();
  }
}
