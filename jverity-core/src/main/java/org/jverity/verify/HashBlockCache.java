package org.jverity.verify;

import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;

/**
 * The hash blocks of every open image, within one byte budget: the role of the kernel's dm-bufio,
 * whose memory limit is global, not per device. One per process is the intent ({@link #shared()}),
 * injected into each {@link VerifiedReader}; a server with many exports and connections shares it.
 *
 * <p>Each image gets a space keyed by what makes its blocks mean something ({@link SpaceKey}): the
 * hash device, every tree parameter (block sizes, digest layout, data size, where the levels sit,
 * the salt) and the root hash. Two readers of the same image share blocks and verified marks; a
 * reader with another root hash gets its own space, so a block verified against one root is never
 * taken as verified against another.
 *
 * <p>Loads are single-flight: threads missing the same block wait for one read. Eviction is CLOCK
 * (second chance) over all spaces, so a hot block survives a scan. Thread-safe.
 */
public final class HashBlockCache {
  /** The default budget: 64 MiB, as the read path's default. */
  public static final long DEFAULT_CAPACITY_BYTES = 64L << 20;

  private static volatile HashBlockCache shared;

  private final long capacityBytes;
  private final AtomicLong cachedBytes = new AtomicLong();
  private final LongAdder cachedBlocks = new LongAdder();
  private final ConcurrentHashMap<SpaceKey, CacheSpace> spaces = new ConcurrentHashMap<>();
  private final ConcurrentLinkedQueue<HashBlock> clock = new ConcurrentLinkedQueue<>();
  // Adders: counters every reader bumps must not bounce one cache line between cores.
  final LongAdder hits = new LongAdder();
  final LongAdder misses = new LongAdder();
  final LongAdder loads = new LongAdder();
  private final LongAdder evictions = new LongAdder();
  final LongAdder invalidations = new LongAdder();

  /**
   * @param capacityBytes the budget for all images together, in bytes; at least one byte (a budget
   *     smaller than a hash block still keeps the block in use: see {@link #evictIfFull})
   */
  public HashBlockCache(long capacityBytes) {
    if (capacityBytes < 1) {
      throw new IllegalArgumentException(
          "cache size: " + capacityBytes + " (expected: at least 1 byte)");
    }
    this.capacityBytes = capacityBytes;
  }

  /** The process-wide cache, created on first use with {@link #DEFAULT_CAPACITY_BYTES}. */
  public static HashBlockCache shared() {
    HashBlockCache c = shared;
    if (c == null) {
      synchronized (HashBlockCache.class) {
        c = shared;
        if (c == null) {
          shared = c = new HashBlockCache(DEFAULT_CAPACITY_BYTES);
        }
      }
    }
    return c;
  }

  public long capacityBytes() {
    return capacityBytes;
  }

  /** The counters now. */
  public CacheStats stats() {
    return new CacheStats(
        capacityBytes,
        cachedBytes.get(),
        cachedBlocks.sum(),
        spaces.size(),
        hits.sum(),
        misses.sum(),
        loads.sum(),
        evictions.sum(),
        invalidations.sum());
  }

  /**
   * The space of one image, shared with every open reader of the same key; each call must be
   * matched by one {@link CacheSpace#release()}.
   *
   * @param key what the image's hash blocks mean
   */
  CacheSpace open(SpaceKey key) {
    while (true) {
      CacheSpace s = spaces.computeIfAbsent(key, k -> new CacheSpace(this, k));
      if (s.retain()) {
        return s;
      }
      spaces.remove(key, s); // released concurrently to zero: make a new one
    }
  }

  /** Called by a space whose last user released it: its blocks leave the budget. */
  void closed(CacheSpace s) {
    spaces.remove(s.key, s);
    s.dropAll();
  }

  /** Accounts a block just added to a space, then evicts others while over budget. */
  void added(HashBlock b) {
    cachedBytes.addAndGet(b.bytes.length);
    cachedBlocks.increment();
    clock.add(b);
    evictIfFull(b);
  }

  /** Accounts a block removed from its space (evicted, invalidated, replaced or dropped). */
  void removed(HashBlock b) {
    cachedBytes.addAndGet(-b.bytes.length);
    cachedBlocks.decrement();
  }

  /**
   * CLOCK sweep: a referenced block loses its bit and goes round again, an unreferenced one is
   * evicted. Each pass gives every block at most one second chance, so the loop ends. The block
   * just added ({@code keep}) is never the victim: a budget smaller than one block still lets a
   * reader use the block it loaded.
   */
  private void evictIfFull(HashBlock keep) {
    for (long scanned = 0, limit = 2 * cachedBlocks.sum() + 2;
        cachedBytes.get() > capacityBytes && scanned < limit;
        scanned++) {
      HashBlock victim = clock.poll();
      if (victim == null) {
        return;
      }
      if (!victim.space.holds(victim)) {
        continue; // already gone from its space (replaced, invalidated, dropped): forget it
      }
      if (victim == keep || victim.referenced) {
        victim.referenced = false;
        clock.add(victim);
      } else if (victim.space.remove(victim)) {
        evictions.increment();
      }
    }
  }
}
