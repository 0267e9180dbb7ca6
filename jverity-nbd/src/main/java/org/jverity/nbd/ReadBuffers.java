package org.jverity.nbd;

import java.util.ArrayDeque;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;

/**
 * The read buffers of one server, within one byte budget ({@link ServerLimits#maxBytesInFlight()}):
 * a request takes a buffer and gives it back after its reply. Buffers given back are kept, by
 * length, for the next request: a copy then allocates nothing per request, so the heap holds the
 * budget, not a stream of garbage the collector must keep up with (which grew the heap under
 * nbdcopy to hundreds of MiB). Kept buffers count against the budget; when a request needs room
 * they hold, they are dropped. {@link #trim} drops them all (the server does when its last client
 * leaves). Thread-safe; a request waits while the budget is taken.
 */
final class ReadBuffers {
  private final long budget; // bytes
  private final ReentrantLock lock = new ReentrantLock(); // not synchronized: virtual threads park cleanly
  private final Condition changed = lock.newCondition(); // a buffer came back or room was made
  private final Map<Integer, ArrayDeque<byte[]>> kept = new HashMap<>(); // by length
  private long held; // bytes allocated: in use or kept
  private long keptBytes; // of which kept
  private int waiting; // requests waiting for room

  ReadBuffers(long budget) {
    if (budget < 1) {
      throw new IllegalArgumentException("read buffer budget: " + budget + " (expected: at least 1 byte)");
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
    lock.lock();
    try {
      while (true) {
        ArrayDeque<byte[]> q = kept.get(length);
        if (q != null && !q.isEmpty()) {
          keptBytes -= cost;
          passOn();
          return q.pop();
        }
        if (held + cost <= budget) {
          held += cost;
          passOn();
          break;
        }
        if (keptBytes > 0) {
          dropKept(); // buffers of other lengths make room
          continue;
        }
        waiting++;
        changed.awaitUninterruptibly(); // a request's reply must still go out
        waiting--;
      }
    } finally {
      lock.unlock();
    }
    try {
      return new byte[length];
    } catch (OutOfMemoryError e) {
      forget(cost);
      throw e;
    }
  }

  /** Gives back a buffer from {@link #take}, to be reused. */
  void give(byte[] b) {
    lock.lock();
    try {
      kept.computeIfAbsent(b.length, k -> new ArrayDeque<>()).push(b);
      keptBytes += cost(b.length);
      if (waiting > 0) {
        changed.signal();
      }
    } finally {
      lock.unlock();
    }
  }

  /** Drops every kept buffer: their memory is the collector's again. */
  void trim() {
    lock.lock();
    try {
      dropKept();
    } finally {
      lock.unlock();
    }
  }

  /** Bytes held now (in use or kept), for tests. */
  long held() {
    lock.lock();
    try {
      return held;
    } finally {
      lock.unlock();
    }
  }

  private void forget(long cost) {
    lock.lock();
    try {
      held -= cost;
      changed.signalAll();
    } finally {
      lock.unlock();
    }
  }

  private void dropKept() {
    if (keptBytes > 0) {
      held -= keptBytes;
      keptBytes = 0;
      kept.clear();
      changed.signalAll(); // room for waiters of any length
    }
  }

  /** One waiter was woken for one buffer; if more can go on, wake the next. */
  private void passOn() {
    if (waiting > 0 && (keptBytes > 0 || held < budget)) {
      changed.signal();
    }
  }
}
