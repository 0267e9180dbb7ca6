package org.jverity.cli.term;

import java.util.ArrayDeque;

/**
 * Throughput over the last {@link #WINDOW_NANOS} only. An average since the start stays low for
 * long after the first second, when the JIT has not yet compiled the hashing loop (it hashes at a
 * tenth of its later speed then); in a moving window that second drops out once it is old. Times
 * are passed in, so tests need no clock. Not thread-safe: the bar's painter alone uses it.
 */
final class RateWindow {
  /** Long enough to smooth a few redraws (200 ms apart), short enough to follow a change. */
  static final long WINDOW_NANOS = 1_000_000_000L;

  /** A rate over less time than this is mostly noise: none is given. */
  static final long MIN_SPAN_NANOS = 100_000_000L;

  private final ArrayDeque<long[]> samples =
      new ArrayDeque<>(); // {nanos, bytes done}, oldest first

  /** Starts counting at {@code startNanos} with nothing done. */
  RateWindow(long startNanos) {
    samples.add(new long[] {startNanos, 0});
  }

  /**
   * Records that {@code bytesDone} bytes (in all, not since the last call) were done at {@code
   * nanos}.
   */
  void add(long nanos, long bytesDone) {
    samples.add(new long[] {nanos, bytesDone});
    // Keep one sample at or before the window's start, so the window is always covered in full.
    while (samples.size() > 2 && nanos - secondOldest()[0] >= WINDOW_NANOS) {
      samples.removeFirst();
    }
  }

  /** Bytes per second over the window, or -1 while it spans less than {@link #MIN_SPAN_NANOS}. */
  double bytesPerSecond() {
    long[] first = samples.getFirst();
    long[] last = samples.getLast();
    long span = last[0] - first[0];
    return span < MIN_SPAN_NANOS ? -1 : (last[1] - first[1]) * 1e9 / span;
  }

  private long[] secondOldest() {
    var it = samples.iterator();
    it.next();
    return it.next();
  }
}
