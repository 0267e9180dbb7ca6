package org.jverity.nbd;

import java.io.IOException;

/**
 * A client broke a rule the connection cannot survive (bad magic, an unknown client flag, a limit
 * exceeded): the connection is closed, with one log line saying why. Other connections go on.
 */
public final class NbdProtocolException extends IOException {
  public NbdProtocolException(String message) {
    super(message);
  }
}
