package org.jverity.verify;

/**
 * How long reading threads may hash inline: {@code budget} nanoseconds per {@code window}, the
 * kernel's need_resched idea; past it, requests go to the pool until the window turns. Kept in a
 * few padded stripes chosen by thread id, not per thread, so its memory is fixed however many
 * (virtual) threads read. Threads sharing a stripe share its budget; unsynchronised updates may
 * lose a charge now and then, which only blurs a heuristic. Thread-safe in that sense.
 */
final class InlineBudget {
  private static final int PAD =
      16; // longs per stripe: two per stripe used, the rest keep lines apart
  private final long[] stripes; // per stripe: [window start ns, ns used in this window]
  private final int mask;
  private volatile long budgetNanos;
  private volatile long windowNanos;

  InlineBudget(long budgetNanos, long windowNanos) {
    int n =
        Integer.highestOneBit(Math.max(1, Runtime.getRuntime().availableProcessors()) * 4 - 1) << 1;
    this.stripes = new long[n * PAD];
    this.mask = n - 1;
    set(budgetNanos, windowNanos);
  }

  void set(long budget, long window) {
    if (budget < 0 || window <= 0) {
      throw new IllegalArgumentException(
          "inline budget: " + budget + " ns per " + window + " ns (expected: >= 0 per > 0)");
    }
    budgetNanos = budget;
    windowNanos = window;
  }

  private int stripe() {
    return (int) (Thread.currentThread().threadId() & mask) * PAD;
  }

  /** Whether the calling thread's stripe has budget left in the current window. */
  boolean left() {
    int s = stripe();
    long now = System.nanoTime();
    if (now - stripes[s] > windowNanos) {
      stripes[s] = now;
      stripes[s + 1] = 0;
    }
    return stripes[s + 1] < budgetNanos;
  }

  void charge(long nanos) {
    stripes[stripe() + 1] += nanos;
  }
}
