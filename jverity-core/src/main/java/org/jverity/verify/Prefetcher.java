package org.jverity.verify;

import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Semaphore;
import java.util.concurrent.atomic.AtomicLong;
import org.jverity.tree.TreeGeometry;

/**
 * Starts reading the hash blocks a request and its neighbourhood will need, without waiting for
 * them (the kernel's {@code verity_prefetch_io}): the data range is widened to the prefetch cluster
 * and every uncached hash block below the top on its paths is loaded in the background. On
 * sequential reads it also reads ahead the next cluster's level-0 hash blocks, so the first
 * Merkle level keeps pace with data readahead. Thread-safe; never blocks the caller: when too many
 * loads are in flight, further prefetches are dropped.
 */
final class Prefetcher implements AutoCloseable {
  private static final int MAX_IN_FLIGHT = 64; // hash block loads

  private final VerifiedReader reader;
  private final HashBlockCache cache;
  private final ExecutorService loaders = Executors.newVirtualThreadPerTaskExecutor(); // I/O-bound
  private final Semaphore inFlight = new Semaphore(MAX_IN_FLIGHT);
  // End of each thread's last request, in bytes: a thread reading sequentially is a stream (one NBD
  // connection, one reader); per thread, so that the hot path shares no written cache line.
  private final ThreadLocal<long[]> lastEnd = ThreadLocal.withInitial(() -> new long[] {-1});
  private final AtomicLong issued = new AtomicLong();
  private volatile long clusterBytes;

  Prefetcher(VerifiedReader reader, long clusterBytes) {
    this.reader = reader;
    this.cache = reader.cache();
    setClusterBytes(clusterBytes);
  }

  void setClusterBytes(long bytes) {
    // A power of two of whole data blocks, as the kernel rounds prefetch_cluster.
    long blocks = Math.max(1, bytes / reader.params().dataBlockSize());
    clusterBytes = Long.highestOneBit(blocks) * reader.params().dataBlockSize();
  }

  long clusterBytes() {
    return clusterBytes;
  }

  /** Hash block loads started so far. */
  long issued() {
    return issued.get();
  }

  /** Called at the start of each request. */
  void request(long offset, long length) {
    TreeGeometry g = reader.geometry();
    if (g.levels() == 0 || length <= 0) {
      return;
    }
    long cluster = clusterBytes;
    long from = Math.floorDiv(offset, cluster) * cluster;
    long to = Math.min(reader.size(), Math.ceilDiv(offset + length, cluster) * cluster);
    long[] previous = lastEnd.get();
    boolean sequential = previous[0] == offset;
    previous[0] = offset + length;
    if (sequential) {
      to = Math.min(reader.size(), to + cluster); // read ahead the first level with the data
    }
    int bs = reader.params().dataBlockSize();
    long firstBlock = from / bs;
    long lastBlock = (to - 1) / bs;
    // The top block is read on first use and then stays hot; prefetch the levels below it.
    for (int level = g.levels() - 2; level >= 0; level--) {
      long first = reader.pathIndex(firstBlock, level);
      long last = reader.pathIndex(lastBlock, level);
      for (long index = first; index <= last; index++) {
        if (!cache.contains(index) && inFlight.tryAcquire()) {
          long i = index;
          issued.incrementAndGet();
          loaders.execute(() -> {
            try {
              cache.load(i);
            } catch (Exception e) {
              // a prefetch is a hint: the real read reports any error
            } finally {
              inFlight.release();
            }
          });
        }
      }
    }
  }

  @Override
  public void close() {
    loaders.shutdownNow();
  }
}
