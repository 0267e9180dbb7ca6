package org.jverity.server;

import java.nio.file.Path;
import java.time.Duration;
import org.jverity.nbd.ServerLimits;
import org.jverity.server.status.RuntimeDir;

/**
 * Where and how a server listens, from {@code open}'s options or {@code serve}'s {@code [generic]}
 * section. Immutable.
 *
 * @param bind the TCP address to listen on (an IP address or host name)
 * @param port the TCP port; 0 for any free port
 * @param socket a Unix-domain socket to listen on instead of TCP; null for TCP
 * @param stdin serve one connection on stdin/stdout instead of listening
 * @param cacheSize bytes of hash blocks cached, shared by every export
 * @param limits connections, requests in flight, idle timeout
 * @param runtimeDir where status sockets go; null for the default ({@link RuntimeDir})
 * @param tls TLS, or {@link TlsConfig#OFF}
 * @param metrics the Prometheus endpoint, or {@link MetricsConfig#NONE}
 */
public record Endpoint(
    String bind,
    int port,
    Path socket,
    boolean stdin,
    long cacheSize,
    ServerLimits limits,
    Path runtimeDir,
    TlsConfig tls,
    MetricsConfig metrics) {

  /** Checks a limit given as an option or a config key: at least 1. */
  static int positive(String what, long value) {
    if (value < 1 || value > Integer.MAX_VALUE) {
      throw new ServerException(
          ServerException.Reason.INVALID_VALUE,
          what + ": " + value + " (expected: 1 to " + Integer.MAX_VALUE + ")");
    }
    return (int) value;
  }

  /**
   * The server limits for the values given (null: the default); a message names a value by its
   * config key (the command line spells it as its option).
   */
  public static ServerLimits limits(
      Integer maxConnections, Integer maxInFlight, Duration idleTimeout) {
    ServerLimits l = ServerLimits.DEFAULTS;
    if (maxConnections != null) {
      l = l.withMaxConnections(positive("max-connections", maxConnections));
    }
    if (maxInFlight != null) {
      l = l.withMaxInFlight(positive("max-in-flight", maxInFlight));
    }
    if (idleTimeout != null) {
      l = l.withIdleTimeout(idleTimeout);
    }
    return l;
  }
}
