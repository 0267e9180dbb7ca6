package org.jverity.verify;

import java.util.Arrays;
import java.util.concurrent.Semaphore;
import java.util.concurrent.atomic.LongAdder;
import org.jverity.tree.MerkleLayout;

/**
 * What a read needs, decided in one place: whether its hash blocks are all cached (so that it may
 * be verified inline, with no I/O but its data), the hints its devices get, and the hash blocks it
 * and its neighbourhood will need, started without waiting for them (the kernel's {@code
 * verity_prefetch_io}): the data range is widened to the prefetch cluster and every uncached hash
 * block below the top on its paths is loaded in the background, through the cache's single-flight
 * load. On sequential reads it also reads ahead the next cluster's level-0 hash blocks, so the
 * first Merkle level keeps pace with data readahead.
 *
 * <p>Never blocks the caller: at most {@link #MAX_IN_FLIGHT} loads run at once, and prefetches
 * beyond that are dropped. Loads are never interrupted; {@link #close()} waits for them. A failed
 * load is counted (the real read reports the error). Thread-safe.
 */
final class Prefetcher implements AutoCloseable {
  static final int MAX_IN_FLIGHT = 64; // hash block loads
  private static final int STREAMS = 64; // recent request ends remembered, to spot sequential reads
  private static final System.Logger LOG = System.getLogger(Prefetcher.class.getName());

  private final VerifiedReader reader;
  private final MerkleLayout layout;
  private final Semaphore inFlight = new Semaphore(MAX_IN_FLIGHT);
  // Ends of recent requests, in bytes, by the cluster they end in: a request starting where one
  // ended is sequential, whichever thread sent it (an NBD client's stream arrives on many).
  // Racy on purpose: a lost update only costs a readahead.
  private final long[] recentEnds = new long[STREAMS];
  private final LongAdder issued = new LongAdder();
  private final LongAdder failed = new LongAdder();
  private volatile long clusterBytes;
  private volatile boolean closed;

  Prefetcher(VerifiedReader reader, long clusterBytes) {
    this.reader = reader;
    this.layout = reader.layout();
    Arrays.fill(recentEnds, -1);
    setClusterBytes(clusterBytes);
  }

  void setClusterBytes(long bytes) {
    if (bytes < 0) {
      throw new IllegalArgumentException("prefetch cluster: " + bytes + " (expected: >= 0)");
    }
    // A power of two of whole data blocks, as the kernel rounds prefetch_cluster.
    long blocks = Math.max(1, bytes / layout.dataBlockSize());
    clusterBytes = Long.highestOneBit(blocks) * layout.dataBlockSize();
  }

  long clusterBytes() {
    return clusterBytes;
  }

  /** Hash block loads started so far. */
  long issued() {
    return issued.sum();
  }

  /** Loads that failed (and were left to the real read to report). */
  long failed() {
    return failed.sum();
  }

  /**
   * Whether every hash block the paths of {@code [offset, offset + length)}'s first and last data
   * blocks need is cached, up to a verified one or the top: only then may the request be verified
   * inline, where a miss would cost a read of its data, then a fall back to the pool and a second
   * wait for the hash blocks (a round trip each from a remote origin). A block in between that is
   * not cached only sends the rest of the request to the pool, as before. Touches no counter.
   */
  boolean pathsCached(long offset, long length) {
    int bs = layout.dataBlockSize();
    return pathCached(offset / bs) && pathCached((offset + Math.max(1, length) - 1) / bs);
  }

  private boolean pathCached(long block) {
    CacheSpace space = reader.space();
    for (int i = 0; i < layout.levels(); i++) {
      HashBlock b = space.peek(layout.hashBlockOnPath(i, block));
      if (b == null) {
        return false;
      }
      if (b.verified()) {
        return true; // verified blocks were reached from a verified parent, or are the top
      }
    }
    return true;
  }

  /**
   * A request for the pool, from {@code from} on (what the inline attempt did not verify): starts
   * the loads it and its cluster need ({@link #request}) and tells the devices about its pieces'
   * data in one go ({@link #announce}).
   */
  void forPool(long offset, long length, long from) {
    request(offset, length);
    announce(from, offset + length, true);
  }

  /**
   * Tells the devices what a read of {@code [offset, end)} will need before it waits for any of it:
   * its data ({@code withData}: when it is read in more than one go, as runs or as the scheduler's
   * parallel pieces, which would otherwise each fetch their own), and the hash blocks its paths
   * lack (below the lowest level that is cached), so a device with a slow origin fetches a data
   * block and its hash blocks in parallel, in as few ranges as the read allows, not one round trip
   * after another. Local devices ignore the hints; the cache is only looked at.
   */
  void announce(long offset, long end, boolean withData) {
    if (withData) {
      reader.dataDevice().prefetch(offset, end - offset);
    }
    CacheSpace space = reader.space();
    long first = offset / layout.dataBlockSize();
    long last = (end - 1) / layout.dataBlockSize();
    int hashBlockSize = layout.hashBlockSize();
    for (int i = 0; i < layout.levels(); i++) {
      long a = layout.hashBlockOnPath(i, first);
      long b = layout.hashBlockOnPath(i, last);
      if (space.containsOrLoading(a) && space.containsOrLoading(b)) {
        return; // this level is cached, and so is every level above it that a walk needs
      }
      reader.hashDevice().prefetch(a * hashBlockSize, (b - a + 1) * hashBlockSize);
    }
  }

  /** Called at the start of each request, after its range was checked. */
  void request(long offset, long length) {
    if (layout.levels() < 2 || length <= 0 || closed) {
      return; // with one level, the top block is all there is: read on first use, then hot
    }
    long cluster = clusterBytes;
    long size = reader.size();
    long from = offset - offset % cluster;
    long to = Math.min(size, (Math.ceilDiv(offset + length, cluster)) * cluster);
    boolean sequential = recentEnds[slot(offset)] == offset;
    if (recentEnds[slot(offset + length)] != offset + length) {
      recentEnds[slot(offset + length)] = offset + length;
    }
    if (sequential) {
      to = Math.min(size, to + cluster); // read ahead the first level with the data
    }
    long firstBlock = from / layout.dataBlockSize();
    long lastBlock = (to - 1) / layout.dataBlockSize();
    // The top block is read on first use and then stays hot; prefetch the levels below it.
    for (int level = layout.levels() - 2; level >= 0; level--) {
      loadRange(level, firstBlock, lastBlock);
    }
  }

  /**
   * Called after a request verified inline, every hash block it needed cached: only the stream
   * bookkeeping, and the first level's readahead when the request continues a stream. Cheap: no
   * lookup at all for a random read, and a write only when the remembered end changes.
   */
  void stream(long offset, long length) {
    if (layout.levels() < 1 || closed) {
      return;
    }
    long end = offset + length;
    boolean sequential = recentEnds[slot(offset)] == offset;
    int s = slot(end);
    if (recentEnds[s] != end) {
      recentEnds[s] = end;
    }
    if (sequential) {
      long cluster = clusterBytes;
      long size = reader.size();
      long from = Math.min(size - 1, Math.ceilDiv(end, cluster) * cluster); // the next cluster
      long to = Math.min(size, from + cluster);
      if (from < to) {
        loadRange(0, from / layout.dataBlockSize(), (to - 1) / layout.dataBlockSize());
      }
    }
  }

  /**
   * Starts loads of the level-{@code level} hash blocks on the paths of data blocks first..last.
   */
  private void loadRange(int level, long firstBlock, long lastBlock) {
    CacheSpace space = reader.space();
    long last = layout.hashBlockOnPath(level, lastBlock);
    for (long index = layout.hashBlockOnPath(level, firstBlock); index <= last; index++) {
      if (!space.containsOrLoading(index) && inFlight.tryAcquire()) {
        start(space, index);
      }
    }
  }

  private int slot(long end) {
    return (int) ((end / Math.max(1, clusterBytes)) % STREAMS);
  }

  private void start(CacheSpace space, long index) {
    issued.increment();
    Runnable load =
        () -> {
          try {
            space.load(index, reader.hashDevice());
          } catch (Exception e) {
            if (failed.sum() == 0) {
              LOG.log(
                  System.Logger.Level.DEBUG, "prefetch of hash block " + index + " failed: " + e);
            }
            failed.increment(); // a prefetch is a hint: the real read reports the error
          } finally {
            inFlight.release();
          }
        };
    try {
      Thread.ofVirtual().name("jverity-prefetch").start(load);
    } catch (RuntimeException | OutOfMemoryError e) {
      inFlight.release();
      failed.increment();
    }
  }

  /** Starts no more loads and waits for those running. */
  @Override
  public void close() {
    closed = true;
    inFlight.acquireUninterruptibly(MAX_IN_FLIGHT);
    inFlight.release(MAX_IN_FLIGHT);
  }
}
