package org.jverity.server;

import java.net.InetSocketAddress;
import org.jverity.server.metrics.NbdMetrics;

/**
 * The Prometheus endpoint of a server ({@link NbdMetrics}), from {@code open}'s options or {@code
 * serve}'s {@code [generic]} keys. Immutable.
 *
 * @param bind the address it listens on
 * @param port its port; null for no metrics
 */
public record MetricsConfig(String bind, Integer port) {
  public static final MetricsConfig NONE = new MetricsConfig("127.0.0.1", null);

  /**
   * Checks the port; the message names it by its config key (the command line spells it as its
   * option).
   */
  public static MetricsConfig of(String bind, Integer port) {
    if (port != null && (port < 0 || port > 65535)) {
      throw new ServerException(
          ServerException.Reason.INVALID_VALUE,
          "metrics-port: " + port + " (expected: 0 to 65535)");
    }
    return new MetricsConfig(bind == null ? "127.0.0.1" : bind, port);
  }

  /** Where the metrics endpoint listens, or null for none. */
  public InetSocketAddress address() {
    if (port == null) {
      return null;
    }
    InetSocketAddress a = new InetSocketAddress(bind, port);
    if (a.isUnresolved()) {
      throw new ServerException(
          ServerException.Reason.INVALID_VALUE,
          "metrics-bind: " + bind + " (expected: an IP address or a host name that resolves)");
    }
    return a;
  }
}
