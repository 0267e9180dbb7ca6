package org.jverity.nbd;

import java.time.Duration;
import java.util.Objects;

/**
 * What one server allows, so that memory and threads stay bounded whatever clients do. A client
 * that exceeds a limit is refused with a protocol error and a log line; other clients go on.
 * Immutable.
 *
 * @param maxConnections connections open at once; more are closed at once
 * @param maxOptions options in one handshake (nbdkit allows 32)
 * @param maxOptionLength bytes of data in one option (a 4096-byte name and its queries fit)
 * @param maxInFlight requests in flight on one connection; the connection stops reading past it
 * @param maxRequestLength bytes one READ may ask for (advertised as the maximum block size)
 * @param maxBytesInFlight bytes of read buffers held by all connections at once; a request longer
 *     than this waits until it can take all of it
 * @param maxWriteDrain bytes of a WRITE payload read and dropped before its EPERM; a longer one
 *     closes the connection
 * @param idleTimeout how long a connection may stay silent; zero for no limit
 */
public record ServerLimits(
    int maxConnections,
    int maxOptions,
    int maxOptionLength,
    int maxInFlight,
    int maxRequestLength,
    long maxBytesInFlight,
    long maxWriteDrain,
    Duration idleTimeout) {

  /** The protocol's own maximum payload, and what clients assume: 32 MiB. */
  public static final int MAX_PAYLOAD = 32 << 20;

  /**
   * The read buffers' default budget: 32 MiB, about 30 ms of hashing on two cores, so clients that
   * ask for more (nbdcopy's 4 connections x 64 requests x 256 KiB) wait, not the cores. The
   * server's heap is sized from it (bin/jverity), so it is part of the memory promise.
   */
  public static final long DEFAULT_BYTES_IN_FLIGHT = 32L << 20;

  public static final ServerLimits DEFAULTS =
      new ServerLimits(
          4096, 32, 64 << 10, 64, MAX_PAYLOAD, DEFAULT_BYTES_IN_FLIGHT, 128L << 20, Duration.ZERO);

  public ServerLimits {
    positive("max connections", maxConnections);
    positive("max options", maxOptions);
    if (maxOptionLength < 4 + Nbd.MAX_STRING + 8) {
      throw new IllegalArgumentException(
          "max option length: "
              + maxOptionLength
              + " (expected: at least "
              + (4 + Nbd.MAX_STRING + 8)
              + ", for a 4096-byte name)");
    }
    positive("max requests in flight", maxInFlight);
    if (maxRequestLength < 4096
        || maxRequestLength > MAX_PAYLOAD
        || Integer.bitCount(maxRequestLength) != 1) {
      throw new IllegalArgumentException(
          "max request length: "
              + maxRequestLength
              + " (expected: a power of two from 4096 to "
              + MAX_PAYLOAD
              + ")");
    }
    if (maxBytesInFlight < maxRequestLength) {
      throw new IllegalArgumentException(
          "max bytes in flight: "
              + maxBytesInFlight
              + " (expected: at least the max request length, "
              + maxRequestLength
              + ")");
    }
    if (maxWriteDrain < 0) {
      throw new IllegalArgumentException("max write drain: " + maxWriteDrain + " (expected: >= 0)");
    }
    Objects.requireNonNull(idleTimeout, "idleTimeout");
    if (idleTimeout.isNegative()) {
      throw new IllegalArgumentException("idle timeout: " + idleTimeout + " (expected: >= 0)");
    }
  }

  private static void positive(String what, long v) {
    if (v < 1) {
      throw new IllegalArgumentException(what + ": " + v + " (expected: at least 1)");
    }
  }

  public ServerLimits withMaxConnections(int v) {
    return new ServerLimits(
        v,
        maxOptions,
        maxOptionLength,
        maxInFlight,
        maxRequestLength,
        maxBytesInFlight,
        maxWriteDrain,
        idleTimeout);
  }

  public ServerLimits withMaxInFlight(int v) {
    return new ServerLimits(
        maxConnections,
        maxOptions,
        maxOptionLength,
        v,
        maxRequestLength,
        maxBytesInFlight,
        maxWriteDrain,
        idleTimeout);
  }

  public ServerLimits withIdleTimeout(Duration v) {
    return new ServerLimits(
        maxConnections,
        maxOptions,
        maxOptionLength,
        maxInFlight,
        maxRequestLength,
        maxBytesInFlight,
        maxWriteDrain,
        v);
  }
}
