package org.jverity.remote.cache;

import java.io.Closeable;
import java.io.IOException;
import java.lang.System.Logger.Level;
import java.nio.ByteBuffer;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLongArray;
import org.jverity.remote.RemoteOptions;
import org.jverity.remote.RemoteStats;

/**
 * The chunks remote devices fetched, shared by every device of one source and keyed by (object
 * identity, chunk index): a replaced object never reads another's chunks. Bounded by {@code
 * cacheMax} bytes ({@code cacheMax / chunkSize} slots, so the index is bounded too); a full cache
 * evicts on the write that needs a slot, by CLOCK (a slot read since the hand last passed is spared
 * once), with no thread of its own. In memory without a {@code cacheDir}; on disk in it otherwise,
 * kept across restarts ({@link DiskSlots}).
 *
 * <p>Untrusted as the origin is: what it returns is verified above it, and a block that does not
 * verify is fetched again and rewritten here ({@link #write} replaces). It never returns bytes it
 * knows are torn: a slot being rewritten is not in the index, and a read that raced a rewrite of
 * its slot is a miss (a generation per slot, checked after the copy).
 *
 * <p>Thread-safe. Hits copy outside the lock (one positional read on disk).
 */
public final class ChunkCache implements Closeable {
  private static final System.Logger LOG = System.getLogger(ChunkCache.class.getName());

  private record ChunkId(String key, long chunk) {}

  private final SlotStore store;
  private final int chunkSize;
  private final RemoteStats stats;
  private final Map<ChunkId, Integer> index = new HashMap<>(); // guarded by this
  private final ChunkId[] holder; // per slot: what it holds, or null (free or being written)
  private final int[] length; // per slot: bytes it holds
  private final boolean[] referenced; // per slot: read since the clock hand last passed
  private final boolean[] writing; // per slot: being written, not to be taken
  private final int[] free; // a stack of free slots
  private int freeCount;
  private int hand;
  private final AtomicLongArray generation; // per slot: bumped when its bytes start to change

  private ChunkCache(SlotStore store, int slots, int chunkSize, RemoteStats stats)
      throws IOException {
    this.store = store;
    this.chunkSize = chunkSize;
    this.stats = stats;
    this.holder = new ChunkId[slots];
    this.length = new int[slots];
    this.referenced = new boolean[slots];
    this.writing = new boolean[slots];
    this.free = new int[slots];
    this.generation = new AtomicLongArray(slots);
    Map<String, String> keys = new HashMap<>(); // one String per object, not per chunk
    for (SlotStore.Entry e : store.entries()) {
      ChunkId id = new ChunkId(keys.computeIfAbsent(e.key(), k -> k), e.chunk());
      Integer before = index.put(id, e.slot());
      if (before != null) { // two slots for one chunk (a crash between install and forget)
        store.forget(before);
        holder[before] = null;
      }
      holder[e.slot()] = id;
      length[e.slot()] = e.length();
    }
    for (int s = slots - 1; s >= 0; s--) {
      if (holder[s] == null) {
        free[freeCount++] = s;
      }
    }
  }

  /**
   * The cache {@code options} describe: in {@code cacheDir} (created if missing; locked while open)
   * or in memory, of {@code cacheMax} bytes in chunks of {@code chunkSize}.
   */
  public static ChunkCache open(RemoteOptions options, RemoteStats stats) throws IOException {
    int chunkSize = options.chunkSize();
    if (chunkSize < 4096 || Integer.bitCount(chunkSize) != 1) {
      throw new IllegalArgumentException(
          "chunk size: " + chunkSize + " (expected: a power of two, at least 4096)");
    }
    if (options.cacheMax() < 0) {
      throw new IllegalArgumentException(
          "cache max: " + options.cacheMax() + " (expected: >= 0 bytes)");
    }
    int slots = Math.toIntExact(options.cacheMax() / chunkSize);
    SlotStore store;
    if (options.cacheDir() == null) {
      store = new MemorySlots(slots, chunkSize);
    } else {
      try {
        store = DiskSlots.open(options.cacheDir(), slots, chunkSize);
      } catch (UnusableCacheException e) {
        // Said once, at the start: failing instead would fail every start (a supervisor loops).
        LOG.log(
            Level.WARNING,
            "running without the cache directory " + options.cacheDir() + ": " + e.getMessage());
        slots = 0;
        store = new MemorySlots(0, chunkSize);
      }
    }
    try {
      return new ChunkCache(store, slots, chunkSize, stats);
    } catch (IOException | RuntimeException e) {
      store.close();
      throw e;
    }
  }

  /** The unit cached: a chunk of an object, the last one of it possibly shorter. */
  public int chunkSize() {
    return chunkSize;
  }

  /** Whether chunk {@code chunk} of object {@code key} is cached (no read, no count). */
  public synchronized boolean contains(String key, long chunk) {
    return index.containsKey(new ChunkId(key, chunk));
  }

  /**
   * Copies bytes {@code [from, from + dst.remaining())} of the chunk into {@code dst} and returns
   * true; or returns false, {@code dst} untouched (its position as it was), when the chunk is not
   * cached, is shorter, or could not be read (then it leaves the cache: a clean miss).
   */
  public boolean read(String key, long chunk, int from, ByteBuffer dst) {
    ChunkId id = new ChunkId(key, chunk);
    int slot;
    long gen;
    synchronized (this) {
      Integer s = index.get(id);
      if (s == null || from + dst.remaining() > length[s]) {
        return false;
      }
      slot = s;
      referenced[slot] = true;
      gen = generation.get(slot);
    }
    int start = dst.position();
    try {
      store.read(slot, from, dst);
    } catch (IOException | RuntimeException e) {
      LOG.log(Level.DEBUG, "cache slot " + slot + " unreadable, dropped: " + e);
      dst.position(start);
      drop(id, slot, gen);
      return false;
    }
    if (generation.get(slot) != gen) { // rewritten while copied: the copy may be torn
      dst.position(start);
      return false;
    }
    return true;
  }

  /**
   * Keeps {@code bytes} (position to limit, at most a chunk) as chunk {@code chunk} of object
   * {@code key}, replacing any copy it had. Best effort: when no slot is free to take, or the store
   * fails, the chunk is simply not kept.
   */
  public void write(String key, long chunk, ByteBuffer bytes) {
    write(key, chunk, bytes, stats);
  }

  /**
   * As {@link #write(String, long, ByteBuffer)}, an eviction it causes counted in {@code by} (the
   * counters of the device, or the export, whose fetch needed the room).
   */
  public void write(String key, long chunk, ByteBuffer bytes, RemoteStats by) {
    if (bytes.remaining() > chunkSize) {
      throw new IllegalArgumentException(
          "chunk of " + bytes.remaining() + " bytes (expected: at most " + chunkSize + ")");
    }
    ChunkId id = new ChunkId(key, chunk);
    int slot;
    synchronized (this) {
      Integer old = index.remove(id);
      slot = old != null ? old : take(by);
      if (slot < 0) {
        return;
      }
      holder[slot] = null;
      writing[slot] = true;
      generation.incrementAndGet(slot);
    }
    int n = bytes.remaining();
    try {
      store.forget(slot);
      store.write(slot, bytes.duplicate());
      store.record(slot, id.key(), chunk, n);
    } catch (IOException | RuntimeException e) {
      LOG.log(Level.DEBUG, "cache slot " + slot + " not written: " + e);
      synchronized (this) {
        writing[slot] = false;
        free[freeCount++] = slot;
      }
      return;
    }
    synchronized (this) {
      writing[slot] = false;
      Integer other = index.put(id, slot);
      if (other != null && other != slot) { // written twice at once: keep the later copy
        holder[other] = null;
        generation.incrementAndGet(other);
        free[freeCount++] = other;
        forgetQuietly(other);
      }
      holder[slot] = id;
      length[slot] = n;
      referenced[slot] = true;
    }
  }

  /** A free slot, or the CLOCK's victim (evicted), or -1 when every slot is being written. */
  private int take(RemoteStats by) {
    if (freeCount > 0) {
      return free[--freeCount];
    }
    int slots = holder.length;
    for (int i = 0; i < 2 * slots; i++) {
      int s = hand;
      hand = (hand + 1) % slots;
      if (writing[s] || holder[s] == null) {
        continue;
      }
      if (referenced[s]) {
        referenced[s] = false;
        continue;
      }
      index.remove(holder[s]);
      holder[s] = null;
      by.cacheEvictions.increment();
      return s;
    }
    return -1;
  }

  /**
   * Forgets chunk {@code chunk} of object {@code key} if it is cached: a copy known to be bad (a
   * recheck fetched part of it afresh), so its next read fetches it whole.
   */
  public void drop(String key, long chunk) {
    ChunkId id = new ChunkId(key, chunk);
    synchronized (this) {
      Integer slot = index.get(id);
      if (slot != null && !writing[slot]) {
        drop(id, slot, generation.get(slot));
      }
    }
  }

  /** Drops the chunk in {@code slot} if it is still there as read at {@code gen}. */
  private void drop(ChunkId id, int slot, long gen) {
    synchronized (this) {
      if (generation.get(slot) != gen || !id.equals(holder[slot])) {
        return; // already rewritten by someone else
      }
      index.remove(id);
      holder[slot] = null;
      generation.incrementAndGet(slot);
      free[freeCount++] = slot;
      forgetQuietly(slot);
    }
  }

  private void forgetQuietly(int slot) {
    try {
      store.forget(slot);
    } catch (IOException e) {
      LOG.log(Level.DEBUG, "cache slot " + slot + " not forgotten: " + e);
    }
  }

  /** Chunks cached now. */
  public synchronized int chunks() {
    return index.size();
  }

  /** Closes the store (and, on disk, unlocks the directory). */
  @Override
  public void close() throws IOException {
    synchronized (this) {
      store.close();
    }
  }
}
