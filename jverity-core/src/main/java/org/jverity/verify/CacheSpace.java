package org.jverity.verify;

import java.io.IOException;
import java.io.InterruptedIOException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.atomic.AtomicInteger;
import org.jverity.io.BlockDevice;

/**
 * One image's share of the {@link HashBlockCache}: its hash blocks by index. {@link #get} never
 * blocks and never reads, so the inline path may call it; {@link #load} reads on a miss, once
 * however many threads miss the same block (single flight). Each reader passes its own hash device:
 * readers of one image may each have opened it, and one closing its device must not break the
 * others' loads (what a block holds is bound by the root hash, whichever copy it came from).
 * Thread-safe.
 */
final class CacheSpace {
  final HashBlockCache cache;
  final SpaceKey key;
  private final int blockSize; // bytes
  // A value is a HashBlock, or a Loading while one thread reads it and others wait.
  private final ConcurrentHashMap<Long, Object> blocks = new ConcurrentHashMap<>();
  private final AtomicInteger users = new AtomicInteger(); // open readers; 0 after the last release
  private volatile boolean dropped;

  /** A block being read by one thread; others wait on it. */
  private static final class Loading extends CompletableFuture<HashBlock> {}

  CacheSpace(HashBlockCache cache, SpaceKey key) {
    this.cache = cache;
    this.key = key;
    this.blockSize = key.hashBlockSize();
  }

  /** Adds a user; false when this space was already released for good. */
  boolean retain() {
    int n;
    do {
      n = users.get();
      if (n < 0) {
        return false;
      }
    } while (!users.compareAndSet(n, n + 1));
    return true;
  }

  /** Removes a user; the last one drops every block from the cache. */
  void release() {
    if (users.decrementAndGet() == 0 && users.compareAndSet(0, -1)) {
      cache.closed(this);
    }
  }

  /** The cached block, or null; never reads, never waits. */
  HashBlock get(long index) {
    if (blocks.get(index) instanceof HashBlock b) {
      cache.hits.increment();
      if (!b.referenced) {
        b.referenced =
            true; // written only when clear: a hot block's line stays shared across cores
      }
      return b;
    }
    return null; // a miss is counted by the load that follows
  }

  /** The cached block, or null, for a look that is not a use: touches no counter, no CLOCK bit. */
  HashBlock peek(long index) {
    return blocks.get(index) instanceof HashBlock b ? b : null;
  }

  /** Whether the block is cached or being loaded; touches no counter and no CLOCK bit. */
  boolean containsOrLoading(long index) {
    return blocks.containsKey(index);
  }

  /**
   * The block, read from {@code device} when it is not cached; one read however many threads miss.
   */
  HashBlock load(long index, BlockDevice device) throws IOException {
    while (true) {
      Object o = blocks.get(index);
      if (o instanceof HashBlock b) {
        cache.hits.increment();
        if (!b.referenced) {
          b.referenced = true;
        }
        return b;
      }
      if (o instanceof Loading l) {
        cache.misses.increment();
        HashBlock b = await(l);
        if (b != null) {
          return b;
        }
        continue; // that load failed: try ourselves (and see the error ourselves)
      }
      Loading mine = new Loading();
      if (blocks.putIfAbsent(index, mine) != null) {
        continue; // another thread started it first
      }
      cache.misses.increment();
      try {
        HashBlock b = new HashBlock(this, index, fetch(index, device), false);
        if (dropped) {
          blocks.remove(index, mine);
          mine.complete(b);
          return b; // the image closed meanwhile: hand the block out, do not cache it
        }
        if (!blocks.replace(index, mine, b)) {
          mine.complete(b);
          return b; // a repair installed its copy meanwhile: that one stays cached
        }
        mine.complete(b);
        cache.added(b);
        return b;
      } catch (Throwable t) {
        blocks.remove(index, mine);
        mine.complete(null); // waiters retry and meet the error themselves
        throw t;
      }
    }
  }

  private static HashBlock await(Loading l) throws IOException {
    try {
      return l.get();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new InterruptedIOException("interrupted while waiting for a hash block");
    } catch (ExecutionException e) {
      return null; // never completed exceptionally; kept for completeness
    }
  }

  /** Reads a block from {@code device} to load it (through any copy the device keeps). */
  private byte[] fetch(long index, BlockDevice device) throws IOException {
    byte[] bytes = new byte[blockSize];
    device.readFully(Math.multiplyExact(index, (long) blockSize), bytes, 0, blockSize);
    cache.loads.increment();
    return bytes;
  }

  /**
   * Reads a fresh copy of a block from {@code device}, bypassing (and not touching) the cache, and
   * past any copy the device keeps: the recheck of a block that did not verify.
   */
  byte[] read(long index, BlockDevice device) throws IOException {
    byte[] bytes = new byte[blockSize];
    device.reread(Math.multiplyExact(index, (long) blockSize), bytes, 0, blockSize);
    cache.loads.increment();
    return bytes;
  }

  /**
   * Puts {@code bytes} in place of whatever is cached for {@code index} (a recheck's fresh copy or
   * a repaired block), with the given verified mark; returns the new block.
   */
  HashBlock install(long index, byte[] bytes, boolean verified) {
    HashBlock b = new HashBlock(this, index, bytes, verified);
    if (dropped) {
      return b;
    }
    Object old = blocks.put(index, b);
    if (old instanceof HashBlock ob) {
      cache.removed(ob);
    }
    cache.added(b);
    return b;
  }

  /** Drops a block that did not verify, so the next reader reads it again. */
  void invalidate(HashBlock b) {
    if (remove(b)) {
      cache.invalidations.increment();
    }
  }

  /** Removes exactly this block instance; false when it is no longer cached. */
  boolean remove(HashBlock b) {
    if (blocks.remove(b.index, b)) {
      cache.removed(b);
      return true;
    }
    return false;
  }

  boolean holds(HashBlock b) {
    return blocks.get(b.index) == b;
  }

  /** After the last release: every block leaves the budget. */
  void dropAll() {
    dropped = true;
    for (Object o : blocks.values()) {
      if (o instanceof HashBlock b) {
        remove(b);
      }
    }
  }

  /** Blocks cached now for this image. */
  long size() {
    return blocks.values().stream().filter(o -> o instanceof HashBlock).count();
  }
}
