package org.jverity.nbd;

import java.net.Inet6Address;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;

/**
 * The NBD URIs ({@code NetworkBlockDevice/nbd doc/uri.md}) a server prints for its exports: {@code
 * nbd://HOST:PORT/NAME} over TCP and {@code nbd+unix:///NAME?socket=PATH} over a Unix socket, with
 * the name and path percent-encoded. The format is the protocol's, not a command line's. Stateless.
 */
public final class NbdUri {
  private NbdUri() {}

  public static String tcp(InetSocketAddress bound, String export) {
    return tcp(bound, export, false);
  }

  /** With {@code tls}, {@code nbds://}: the client must use TLS. */
  public static String tcp(InetSocketAddress bound, String export, boolean tls) {
    return (tls ? "nbds://" : "nbd://")
        + host(bound)
        + ":"
        + bound.getPort()
        + "/"
        + encode(export, false);
  }

  /** The address as a URI host: IPv6 in brackets, without a zone. */
  public static String host(InetSocketAddress bound) {
    var address = bound.getAddress();
    return address instanceof Inet6Address
        ? "[" + address.getHostAddress().replaceAll("%.*", "") + "]"
        : address.getHostAddress();
  }

  public static String unix(Path socket, String export) {
    return "nbd+unix:///"
        + encode(export, false)
        + "?socket="
        + encode(socket.toAbsolutePath().toString(), true);
  }

  /** Percent-encodes all but RFC 3986's unreserved characters (and '/' in a path). */
  private static String encode(String text, boolean keepSlash) {
    StringBuilder out = new StringBuilder();
    for (byte b : text.getBytes(StandardCharsets.UTF_8)) {
      char c = (char) (b & 0xff);
      if ((c >= 'a' && c <= 'z')
          || (c >= 'A' && c <= 'Z')
          || (c >= '0' && c <= '9')
          || c == '-'
          || c == '.'
          || c == '_'
          || c == '~'
          || (keepSlash && c == '/')) {
        out.append(c);
      } else {
        out.append(String.format("%%%02X", b & 0xff));
      }
    }
    return out.toString();
  }
}
