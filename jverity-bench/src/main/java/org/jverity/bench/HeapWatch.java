package org.jverity.bench;

import com.sun.management.GarbageCollectionNotificationInfo;
import java.lang.management.GarbageCollectorMXBean;
import java.lang.management.ManagementFactory;
import java.lang.management.MemoryPoolMXBean;
import java.lang.management.MemoryType;
import java.lang.management.MemoryUsage;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAccumulator;
import java.util.stream.Collectors;
import javax.management.ListenerNotFoundException;
import javax.management.Notification;
import javax.management.NotificationEmitter;
import javax.management.NotificationListener;
import javax.management.openmbean.CompositeData;

/**
 * The live heap while a workload runs: the used heap after every collection that ends while it is
 * open (summed over the heap pools, from the collectors' notifications), and its peak. Only what
 * survives a collection counts, so garbage waiting for the next one does not.
 *
 * <p>Thread-safe: notifications arrive on a JMX thread.
 */
final class HeapWatch implements AutoCloseable, NotificationListener {
  private final Set<String> heapPools =
      ManagementFactory.getMemoryPoolMXBeans().stream()
          .filter(p -> p.getType() == MemoryType.HEAP)
          .map(MemoryPoolMXBean::getName)
          .collect(Collectors.toSet());
  private final List<NotificationEmitter> emitters = new ArrayList<>();
  private final LongAccumulator peak = new LongAccumulator(Math::max, 0); // bytes used after a GC
  private final AtomicLong collections = new AtomicLong();

  HeapWatch() {
    for (GarbageCollectorMXBean gc : ManagementFactory.getGarbageCollectorMXBeans()) {
      if (gc instanceof NotificationEmitter e) {
        e.addNotificationListener(this, null, null);
        emitters.add(e);
      }
    }
  }

  @Override
  public void handleNotification(Notification n, Object handback) {
    if (!GarbageCollectionNotificationInfo.GARBAGE_COLLECTION_NOTIFICATION.equals(n.getType())) {
      return;
    }
    var info = GarbageCollectionNotificationInfo.from((CompositeData) n.getUserData());
    long used = 0;
    for (Map.Entry<String, MemoryUsage> e : info.getGcInfo().getMemoryUsageAfterGc().entrySet()) {
      if (heapPools.contains(e.getKey())) {
        used += e.getValue().getUsed();
      }
    }
    peak.accumulate(used);
    collections.incrementAndGet();
  }

  /**
   * Forces a full collection and returns the heap used right after it, in bytes; the collection's
   * notification also lands in {@link #peak()} (it is delivered asynchronously, shortly after).
   */
  static long usedAfterFullGc() {
    System.gc();
    return ManagementFactory.getMemoryMXBean().getHeapMemoryUsage().getUsed();
  }

  /** The most heap used after any collection seen so far, in bytes. */
  long peak() {
    return peak.get();
  }

  /** Collections seen so far. */
  long collections() {
    return collections.get();
  }

  @Override
  public void close() {
    for (NotificationEmitter e : emitters) {
      try {
        e.removeNotificationListener(this);
      } catch (ListenerNotFoundException ignored) {
        // never added to this one: nothing to remove
      }
    }
  }
}
