package org.jverity.cli.daemon;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Locale;
import org.jverity.nbd.NbdTls;
import org.jverity.nbd.X509Tls;
import org.jverity.cli.command.CliException;
import org.jverity.cli.command.ExitCode;

/**
 * TLS and metrics of a server, from {@code open}'s options or {@code serve}'s {@code [generic]}
 * keys. Immutable.
 *
 * @param tls "off", "on" (offered) or "require"
 * @param certificates nbdkit's {@code --tls-certificates} directory; null for nbdkit's default
 *     ({@code $HOME/.pki/nbdkit}, or {@code /etc/pki/nbdkit} as root)
 * @param verifyPeer clients must present a certificate signed by {@code ca-cert.pem}
 * @param metricsBind the address the Prometheus endpoint listens on
 * @param metricsPort its port; null for no metrics
 */
public record Security(String tls, Path certificates, boolean verifyPeer, String metricsBind, Integer metricsPort) {
  public static final Security NONE = new Security("off", null, false, "127.0.0.1", null);
  static final String TLS_EXPECTED = "off, on or require";

  /** Checks the combination; {@code prefix} is "--" for options, "" for config keys. */
  public static Security of(String tls, Path certificates, boolean verifyPeer, String metricsBind, Integer metricsPort,
      String prefix) {
    String mode = tls == null ? "off" : tls.toLowerCase(Locale.ROOT);
    if (!mode.equals("off") && !mode.equals("on") && !mode.equals("require")) {
      throw new CliException(ExitCode.INVALID_PARAMETER, prefix + "tls: " + tls + " (expected: " + TLS_EXPECTED + ")");
    }
    if (mode.equals("off") && (certificates != null || verifyPeer)) {
      throw new CliException(ExitCode.USAGE, prefix + "tls-certificates and " + prefix
          + "tls-verify-peer need " + prefix + "tls on or require");
    }
    if (metricsPort != null && (metricsPort < 0 || metricsPort > 65535)) {
      throw new CliException(ExitCode.INVALID_PARAMETER, prefix + "metrics-port: " + metricsPort
          + " (expected: 0 to 65535)");
    }
    return new Security(mode, certificates, verifyPeer, metricsBind == null ? "127.0.0.1" : metricsBind, metricsPort);
  }

  boolean tlsOn() {
    return !tls.equals("off");
  }

  /** The server's TLS, or null when off; a missing or bad certificate is one line, exit 3. */
  NbdTls openTls() {
    if (!tlsOn()) {
      return null;
    }
    Path dir = certificates != null ? certificates : defaultDirectory();
    try {
      return X509Tls.fromDirectory(dir, tls.equals("require") ? NbdTls.Mode.REQUIRE : NbdTls.Mode.ON, verifyPeer);
    } catch (IOException e) {
      throw new CliException(ExitCode.INVALID_PARAMETER, "tls: " + e.getMessage());
    }
  }

  /** Where the metrics endpoint listens, or null for none. */
  InetSocketAddress metricsAddress() {
    if (metricsPort == null) {
      return null;
    }
    InetSocketAddress a = new InetSocketAddress(metricsBind, metricsPort);
    if (a.isUnresolved()) {
      throw new CliException(ExitCode.INVALID_PARAMETER, "metrics-bind: " + metricsBind
          + " (expected: an IP address or a host name that resolves)");
    }
    return a;
  }

  /** nbdkit's default: {@code $HOME/.pki/nbdkit} for a user, {@code /etc/pki/nbdkit} for root. */
  private static Path defaultDirectory() {
    Path user = Path.of(System.getProperty("user.home"), ".pki", "nbdkit");
    boolean root = "root".equals(System.getProperty("user.name"));
    return !root && Files.isDirectory(user) ? user : Path.of("/etc/pki/nbdkit");
  }
}
