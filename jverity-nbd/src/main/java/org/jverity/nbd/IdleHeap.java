package org.jverity.nbd;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Gives memory back once a server has had no client for a while. A JVM keeps the heap it grew under
 * load, and its collector runs only when something allocates, so an idle server would hold its peak
 * for ever. {@link #AFTER} after the last client left, if none came meanwhile, one full collection
 * runs; with {@code -XX:MaxHeapFreeRatio} (bin/jverity sets it for servers) the collector then
 * returns the free heap to the system. {@code -XX:+DisableExplicitGC} turns it off.
 *
 * <p>One waiting thread at most, whatever the clients do: a client that connects and leaves a
 * thousand times a second must not leave a thousand sleepers behind it each second (memory would
 * grow with the clients). Thread-safe.
 */
final class IdleHeap {
  /** How long a server stays without clients before its heap is collected. */
  static final Duration AFTER = Duration.ofSeconds(10);

  private final Duration after;
  private final Runnable collect;
  private final AtomicLong changes = new AtomicLong(); // clients coming and going
  private final AtomicBoolean waiting = new AtomicBoolean(); // a thread waits for a quiet period
  private final AtomicLong waiters = new AtomicLong(); // threads started, for tests
  private volatile boolean idle; // no client since the last one left

  IdleHeap() {
    this(AFTER, System::gc); // the one moment a full collection costs no client anything
  }

  /** With another quiet period and collection, for tests. */
  IdleHeap(Duration after, Runnable collect) {
    this.after = after;
    this.collect = collect;
  }

  /** A client connected: a collection already due is not wanted any more. */
  void clientCame() {
    idle = false;
    changes.incrementAndGet();
  }

  /** The last client left: collect after the quiet period unless one comes meanwhile. */
  void lastClientLeft() {
    idle = true;
    changes.incrementAndGet();
    if (waiting.compareAndSet(false, true)) {
      waiters.incrementAndGet();
      Thread.ofVirtual().name("nbd-idle-heap").start(this::awaitQuiet);
    }
  }

  /**
   * Sleeps until a whole quiet period passed with no client coming or going, then collects if idle.
   */
  private void awaitQuiet() {
    while (true) {
      long seen = changes.get();
      try {
        Thread.sleep(after);
      } catch (InterruptedException e) {
        waiting.set(false);
        return;
      }
      if (changes.get() != seen) {
        continue; // clients came or went: wait for the next quiet period
      }
      if (idle) {
        collect.run();
      }
      waiting.set(false);
      // A client that left after the look above found this thread still waiting: look again for it.
      if (changes.get() == seen || !idle || !waiting.compareAndSet(false, true)) {
        return;
      }
    }
  }

  /** Waiting threads started so far (at most one at a time). */
  long waitersStarted() {
    return waiters.get();
  }
}
