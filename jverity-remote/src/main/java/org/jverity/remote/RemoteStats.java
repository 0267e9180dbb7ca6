package org.jverity.remote;

import java.util.concurrent.atomic.LongAdder;

/**
 * What the remote devices of one {@link RemoteSource} did: origin requests, bytes, retries and
 * failures; cache hits, misses and evictions; a latency histogram of origin requests. Counters only
 * go up; {@code status}, {@code --json} and the Prometheus metrics read them. Thread-safe.
 */
public final class RemoteStats {
  /** Upper bounds of the latency histogram's buckets, in seconds (the last bucket is +Inf). */
  public static final double[] LATENCY_BOUNDS = {
    0.001, 0.002, 0.005, 0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1, 2, 5, 10, 30
  };

  /** Range and probe requests sent to origins, retries included. */
  public final LongAdder requests = new LongAdder();

  /** Body bytes received from origins. */
  public final LongAdder bytes = new LongAdder();

  /** Requests sent again after a transient fault. */
  public final LongAdder retries = new LongAdder();

  /** Fetches that failed for good (after their retries): EIO for the read that needed them. */
  public final LongAdder failures = new LongAdder();

  /** Chunks read from the local cache. */
  public final LongAdder cacheHits = new LongAdder();

  /** Chunks the cache did not have, fetched from an origin. */
  public final LongAdder cacheMisses = new LongAdder();

  /** Chunks dropped from the cache to stay within its bound. */
  public final LongAdder cacheEvictions = new LongAdder();

  /** Blocks fetched again past the cache because they did not verify (the read path's recheck). */
  public final LongAdder rereads = new LongAdder();

  private final LongAdder[] latency = new LongAdder[LATENCY_BOUNDS.length + 1];
  private final LongAdder latencyNanos = new LongAdder();

  public RemoteStats() {
    for (int i = 0; i < latency.length; i++) {
      latency[i] = new LongAdder();
    }
  }

  /** Counts one origin request that took {@code nanos} (answered or not). */
  public void recordLatency(long nanos) {
    double seconds = nanos / 1e9;
    int i = 0;
    while (i < LATENCY_BOUNDS.length && seconds > LATENCY_BOUNDS[i]) {
      i++;
    }
    latency[i].increment();
    latencyNanos.add(nanos);
  }

  /** Requests per bucket (not cumulative), the last one past every bound. */
  public long[] latencyCounts() {
    long[] counts = new long[latency.length];
    for (int i = 0; i < counts.length; i++) {
      counts[i] = latency[i].sum();
    }
    return counts;
  }

  /** Total seconds of every request {@link #recordLatency} counted. */
  public double latencySeconds() {
    return latencyNanos.sum() / 1e9;
  }
}
