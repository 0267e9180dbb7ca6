package org.jverity.remote.http;

import java.util.concurrent.ThreadLocalRandom;

/**
 * How long to wait before a retry: exponential (50 ms, doubling, at most 2 s) with full jitter (a
 * uniform wait between zero and that), so that many clients failing at once do not retry in step
 * (AWS's "exponential backoff and jitter").
 */
final class Backoff {
  static final long BASE_NANOS = 50_000_000L;
  static final long CAP_NANOS = 2_000_000_000L;

  private Backoff() {}

  /** The wait before retry number {@code retry} (1 for the first), nanoseconds. */
  static long nanos(int retry) {
    long ceiling = BASE_NANOS << Math.min(retry - 1, 20);
    return ThreadLocalRandom.current().nextLong(Math.min(ceiling, CAP_NANOS) + 1);
  }
}
