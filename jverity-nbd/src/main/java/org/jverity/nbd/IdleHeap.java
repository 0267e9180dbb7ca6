package org.jverity.nbd;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Gives memory back once a server has had no client for a while. A JVM keeps the heap it grew
 * under load, and its collector runs only when something allocates, so an idle server would hold
 * its peak for ever. {@link #AFTER} after the last client left, if none came meanwhile, one full
 * collection runs; with {@code -XX:MaxHeapFreeRatio} (bin/jverity sets it for servers) the
 * collector then returns the free heap to the system. {@code -XX:+DisableExplicitGC} turns it off.
 * Thread-safe.
 */
final class IdleHeap {
  /** How long a server stays without clients before its heap is collected. */
  static final Duration AFTER = Duration.ofSeconds(10);

  private final AtomicLong changes = new AtomicLong(); // clients coming and going

  /** A client connected: a collection already scheduled is not wanted any more. */
  void clientCame() {
    changes.incrementAndGet();
  }

  /** The last client left: collect after {@link #AFTER} unless one came since. */
  void lastClientLeft() {
    long now = changes.incrementAndGet();
    Thread.ofVirtual().name("nbd-idle-heap").start(() -> {
      try {
        Thread.sleep(AFTER);
      } catch (InterruptedException e) {
        return;
      }
      if (changes.get() == now) {
        System.gc(); // the one moment a full collection costs no client anything
      }
    });
  }
}
