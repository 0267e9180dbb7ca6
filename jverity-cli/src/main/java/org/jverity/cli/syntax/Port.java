package org.jverity.cli.syntax;

/** A TCP port on the command line or in a config file: 0 (any free port) to 65535. Stateless. */
public final class Port {
  public static final String EXPECTED = "a port from 0 (any free port) to 65535";

  /** The IANA port of NBD. */
  public static final int NBD = 10809;

  public static int parse(String text) {
    try {
      int port = Integer.parseInt(text);
      if (port >= 0 && port <= 65535) {
        return port;
      }
    } catch (NumberFormatException e) {
      // refused below
    }
    throw new BadValue(EXPECTED);
  }
}
