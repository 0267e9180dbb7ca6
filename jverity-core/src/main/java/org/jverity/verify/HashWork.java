package org.jverity.verify;

import java.util.Arrays;
import java.util.concurrent.atomic.AtomicReferenceArray;
import org.jverity.hash.BlockHasher;

/**
 * What hashing one request needs: a hasher (a reusable digest) and small scratch arrays, two
 * kilobytes at most. A virtual thread (a server may run one per request) takes one from a {@link
 * Pool} for the length of a request and gives it back, so their memory follows the requests in
 * flight, not the number of threads; a platform thread keeps its own, since platform threads are
 * few.
 */
final class HashWork {
  /**
   * Data blocks hashed in one call at most: enough that the native loop's call costs nothing per
   * block and its two streams stay paired, few enough that the digests fit in two kilobytes.
   */
  static final int GROUP = 32;

  final BlockHasher hasher;
  final byte[] digest; // one digest
  final byte[] digests; // a group's digests, one after another (GROUP of them)
  final HashBlock[] path; // one hash block per level, on the current data block's path
  int verified; // data blocks of the current run verified so far (kept when a later one fails)
  // The data block whose digest HashPath.level0 left in digests[0, digestSize), hashed with its
  // level-0 hash block (both at hand on a cold read, two streams); -1: none.
  long hashedWithPath = -1;

  private HashWork(BlockHasher hasher, int levels) {
    this.hasher = hasher;
    this.digest = new byte[hasher.digestSize()];
    this.digests = new byte[GROUP * hasher.digestSize()];
    this.path = new HashBlock[levels + 1];
  }

  /**
   * A bounded set of idle {@link HashWork}s: a few slots taken and returned with one atomic swap
   * each. When all are in use a new one is made, and when all slots are full a returned one is
   * dropped, so it never holds more than its slots.
   */
  static final class Pool {
    private final BlockHasher prototype;
    private final int levels;
    private final AtomicReferenceArray<HashWork> idle; // for virtual threads
    private final ThreadLocal<HashWork> own = new ThreadLocal<>(); // for platform threads

    Pool(BlockHasher prototype, int levels, int slots) {
      this.prototype = prototype.copy();
      this.levels = levels;
      this.idle = new AtomicReferenceArray<>(slots);
    }

    /** A hasher of its own, for work off the request's path (a repairer's checks). */
    BlockHasher hasher() {
      return prototype.copy();
    }

    HashWork take() {
      if (!Thread.currentThread().isVirtual()) {
        // Platform threads are few and long-lived (a pool, a server's workers): one each, no
        // atomics.
        HashWork w = own.get();
        if (w == null) {
          own.set(w = new HashWork(prototype.copy(), levels));
        }
        return w;
      }
      int start = (int) (Thread.currentThread().threadId() % idle.length());
      for (int i = 0; i < idle.length(); i++) {
        int slot = (start + i) % idle.length();
        HashWork w = idle.get(slot); // read first: an empty slot costs no write
        if (w != null && idle.compareAndSet(slot, w, null)) {
          return w;
        }
      }
      return new HashWork(prototype.copy(), levels);
    }

    void give(HashWork w) {
      Arrays.fill(w.path, null); // keep no evicted block alive
      if (!Thread.currentThread().isVirtual()) {
        return; // it stays the thread's own
      }
      int start = (int) (Thread.currentThread().threadId() % idle.length());
      for (int i = 0; i < idle.length(); i++) {
        if (idle.compareAndSet((start + i) % idle.length(), null, w)) {
          return;
        }
      }
    }
  }
}
