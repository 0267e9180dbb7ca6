package org.jverity.nbd;

import java.util.Map;
import java.util.Queue;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;

/**
 * The read buffers of one server, within one byte budget ({@link ServerLimits#maxBytesInFlight()}):
 * a request takes a buffer and gives it back after its reply. Buffers given back are kept, by
 * length, for the next request: a copy then allocates nothing per request, so the heap holds the
 * budget, not a stream of garbage the collector must keep up with (which grew the heap under
 * nbdcopy to hundreds of MiB). Kept buffers count against the budget; when a request needs room
 * they hold, they are dropped, and their lengths' queues with them (else a client asking for every
 * length once would leave a queue per length: memory by the requests, not the budget). {@link
 * #trim} drops them all (the server does when its last client leaves). Thread-safe; taking and
 * giving back take no lock (every small READ does both), a request waits while the budget is taken.
 */
final class ReadBuffers {
  private final long budget; // bytes
  private final AtomicLong held = new AtomicLong(); // bytes allocated: in use or kept
  private final ConcurrentHashMap<Integer, Kept> kept = new ConcurrentHashMap<>(); // by length
  private final AtomicLong keptBytes = new AtomicLong(); // of held, kept (a hint: see dropKept)
  private final ReentrantLock lock =
      new ReentrantLock(); // only to wait: virtual threads park cleanly
  private final Condition changed = lock.newCondition(); // a buffer came back or room was made
  private final AtomicInteger waiting = new AtomicInteger(); // requests waiting for room
  private final AtomicLong drops = new AtomicLong(); // times kept buffers were dropped to make room

  ReadBuffers(long budget) {
    if (budget < 1) {
      throw new IllegalArgumentException(
          "read buffer budget: " + budget + " (expected: at least 1 byte)");
    }
    this.budget = budget;
  }

  /** What a buffer counts against the budget: one longer than the budget takes all of it. */
  private long cost(int length) {
    return Math.min(length, budget);
  }

  /** A buffer of exactly {@code length} bytes (not zeroed when reused); waits for room. */
  byte[] take(int length) {
    long cost = cost(length);
    long dropped = drops.get();
    byte[] b = tryTake(length, cost);
    if (b != null) {
      return b;
    }
    lock.lock();
    waiting.incrementAndGet(); // before looking again: a buffer given back from now on signals
    try {
      while ((b = tryTake(length, cost)) == null) {
        if (drops.get() != dropped) {
          // Kept buffers were dropped (by this look, or since the last): room this request cannot
          // use may serve another, which the one wake-up it had would otherwise never reach.
          changed.signal();
        }
        changed.awaitUninterruptibly(); // a request's reply must still go out
        dropped = drops.get();
      }
    } finally {
      waiting.decrementAndGet();
      lock.unlock();
    }
    if (waiting.get() > 0) {
      wake(); // there may be room for the next one too
    }
    return b;
  }

  /** A kept buffer, or a new one if there is room (made by dropping kept ones), else null. */
  private byte[] tryTake(int length, long cost) {
    while (true) {
      Kept k = kept.get(length);
      byte[] b = k == null ? null : k.buffers.poll(); // from a retired queue too: it is in use
      if (b != null) {
        keptBytes.addAndGet(-cost);
        return b;
      }
      long h = held.get();
      if (h + cost <= budget) {
        if (held.compareAndSet(h, h + cost)) {
          try {
            return new byte[length];
          } catch (OutOfMemoryError e) {
            held.addAndGet(-cost);
            throw e;
          }
        }
        continue;
      }
      if (keptBytes.get() <= 0 || !dropKept()) {
        return null;
      }
    }
  }

  /** Gives back a buffer from {@link #take}, to be reused. */
  void give(byte[] b) {
    long cost = cost(b.length);
    Kept k = kept.computeIfAbsent(b.length, n -> new Kept());
    k.buffers.offer(b);
    if (k.retired && k.buffers.remove(b)) {
      held.addAndGet(-cost); // a drop took the queue out of the map meanwhile: b is dropped too
    } else {
      keptBytes.addAndGet(cost);
    }
    if (waiting.get() > 0) {
      wake();
    }
  }

  /** Drops every kept buffer: their memory is the collector's again. */
  void trim() {
    if (dropKept() && waiting.get() > 0) {
      wake();
    }
  }

  /** Bytes held now (in use or kept), for tests. */
  long held() {
    return held.get();
  }

  /** Lengths that have a queue of kept buffers now, for tests. */
  int keptLengths() {
    return kept.size();
  }

  /** Drops the kept buffers; whether any was. */
  private boolean dropKept() {
    boolean any = false;
    for (Map.Entry<Integer, Kept> e : kept.entrySet()) {
      Kept k = e.getValue();
      kept.remove(e.getKey(), k); // the next buffer of this length starts a new queue
      k.retired = true; // then: one given into it after this takes itself back out (give)
      for (byte[] b; (b = k.buffers.poll()) != null; ) {
        long cost = cost(b.length);
        keptBytes.addAndGet(-cost);
        held.addAndGet(-cost);
        any = true;
      }
    }
    if (any) {
      drops.incrementAndGet();
    }
    return any;
  }

  /**
   * The kept buffers of one length. Retired once a drop took it out of the map: a buffer given into
   * it after that is not kept (nothing would find it again, and its bytes would count against the
   * budget for ever). A giver offers then reads {@code retired}, a drop writes it then polls: one
   * of the two sees the other, so every buffer given back is kept, reused or dropped.
   */
  private static final class Kept {
    final Queue<byte[]> buffers = new ConcurrentLinkedQueue<>();
    volatile boolean retired;
  }

  /**
   * Wakes one waiter: it takes the buffer given back, or drops kept ones to make room, and wakes
   * the next once served. One, not all: a copy keeps a hundred requests waiting, and every reply
   * would wake them all.
   */
  private void wake() {
    lock.lock();
    try {
      changed.signal();
    } finally {
      lock.unlock();
    }
  }
}
