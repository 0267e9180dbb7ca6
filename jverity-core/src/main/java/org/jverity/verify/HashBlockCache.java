package org.jverity.verify;

import java.io.IOException;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.LongAdder;
import org.jverity.io.BlockDevice;

/**
 * A bounded cache of hash blocks (the role of the kernel's dm-bufio for dm-verity). Thread-safe.
 * {@link #get} never blocks and never reads: it is what an inline verification may call.
 * {@link #load} reads on a miss. Eviction is CLOCK (second chance) in insertion order, so a hot
 * block survives a scan; blocks are immutable, so an evicted block still held by a reader stays
 * valid for that reader.
 */
public final class HashBlockCache {
  private final BlockDevice device;
  private final int blockSize; // bytes
  private final long capacityBlocks;
  private final ConcurrentHashMap<Long, HashBlock> blocks = new ConcurrentHashMap<>();
  private final ConcurrentLinkedQueue<HashBlock> clock = new ConcurrentLinkedQueue<>();
  private final LongAdder hits = new LongAdder(); // adders: counters every reader bumps must not bounce
  private final LongAdder misses = new LongAdder();

  /**
   * @param capacityBytes upper bound of cached bytes, at least one block
   */
  public HashBlockCache(BlockDevice device, int blockSize, long capacityBytes) {
    this.device = device;
    this.blockSize = blockSize;
    this.capacityBlocks = Math.max(1, capacityBytes / blockSize);
  }

  /** The cached block, or null; never reads. */
  HashBlock get(long index) {
    HashBlock b = blocks.get(index);
    if (b != null) {
      hits.increment();
      if (!b.referenced) {
        b.referenced = true; // written only when clear: a hot block's line stays shared across cores
      }
    }
    return b;
  }

  /** Whether the block is cached; touches no statistics and no CLOCK bit. */
  boolean contains(long index) {
    return blocks.containsKey(index);
  }

  /** The block, read from the device when it is not cached. */
  HashBlock load(long index) throws IOException {
    HashBlock b = get(index);
    if (b != null) {
      return b;
    }
    misses.increment();
    byte[] bytes = new byte[blockSize];
    device.readFully(index * blockSize, bytes, 0, blockSize);
    HashBlock fresh = new HashBlock(index, bytes);
    HashBlock raced = blocks.putIfAbsent(index, fresh);
    if (raced != null) {
      return raced; // another reader loaded it first; keep one copy (and its verified flag)
    }
    clock.add(fresh);
    evictIfFull();
    return fresh;
  }

  private void evictIfFull() {
    // Each pass gives every block at most one second chance, so the loop ends.
    for (int scanned = 0; blocks.size() > capacityBlocks && scanned < 2 * blocks.size() + 2; scanned++) {
      HashBlock victim = clock.poll();
      if (victim == null) {
        return;
      }
      if (victim.referenced) {
        victim.referenced = false;
        clock.add(victim);
      } else {
        blocks.remove(victim.index, victim);
      }
    }
  }

  /** Blocks cached now. */
  public long size() {
    return blocks.size();
  }

  public long capacityBlocks() {
    return capacityBlocks;
  }

  public long hits() {
    return hits.sum();
  }

  public long misses() {
    return misses.sum();
  }
}
