package org.jverity.nbd;

import java.io.IOException;
import java.net.Socket;

/**
 * TLS for a server: whether clients may or must use it, and how to turn an accepted TCP socket into
 * a server-side TLS socket after NBD_OPT_STARTTLS. Implementations must be thread-safe.
 */
public interface NbdTls {
  /** {@code --tls=on}: offered; {@code require}: no export without it. */
  enum Mode {
    ON,
    REQUIRE
  }

  Mode mode();

  /** Starts TLS on {@code plain} as the server and completes the handshake. */
  Socket wrap(Socket plain) throws IOException;
}
