package org.jverity.server;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.jverity.nbd.NbdTls;

/**
 * TLS of a server, from {@code open}'s options or {@code serve}'s {@code [generic]} keys.
 * Immutable.
 *
 * @param mode off, offered or required
 * @param certificates nbdkit's {@code --tls-certificates} directory; null for nbdkit's default
 *     ({@code $HOME/.pki/nbdkit}, or {@code /etc/pki/nbdkit} as root)
 * @param verifyPeer clients must present a certificate signed by {@code ca-cert.pem}
 */
public record TlsConfig(TlsMode mode, Path certificates, boolean verifyPeer) {
  public static final TlsConfig OFF = new TlsConfig(TlsMode.OFF, null, false);

  /**
   * Checks the combination. Messages name the values by their config keys; the command line spells
   * them as its options.
   */
  public static TlsConfig of(String tls, Path certificates, boolean verifyPeer) {
    TlsMode mode = TlsMode.parse(tls);
    if (mode == null) {
      throw new ServerException(
          ServerException.Reason.INVALID_VALUE,
          "tls: " + tls + " (expected: " + TlsMode.EXPECTED + ")");
    }
    if (mode == TlsMode.OFF && (certificates != null || verifyPeer)) {
      throw new ServerException(
          ServerException.Reason.CONFLICT,
          "tls-certificates and tls-verify-peer need tls on or require");
    }
    return new TlsConfig(mode, certificates, verifyPeer);
  }

  public boolean on() {
    return mode != TlsMode.OFF;
  }

  /**
   * The server's TLS, or null when off; a missing or bad certificate is one line, an invalid value.
   */
  public NbdTls open() {
    if (!on()) {
      return null;
    }
    Path dir = certificates != null ? certificates : defaultDirectory();
    try {
      return X509Tls.fromDirectory(dir, mode.nbd(), verifyPeer);
    } catch (IOException e) {
      throw new ServerException(ServerException.Reason.INVALID_VALUE, "tls: " + e.getMessage());
    }
  }

  /** nbdkit's default: {@code $HOME/.pki/nbdkit} for a user, {@code /etc/pki/nbdkit} for root. */
  private static Path defaultDirectory() {
    Path user = Path.of(System.getProperty("user.home"), ".pki", "nbdkit");
    boolean root = "root".equals(System.getProperty("user.name"));
    return !root && Files.isDirectory(user) ? user : Path.of("/etc/pki/nbdkit");
  }
}
