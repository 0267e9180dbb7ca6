package org.jverity.server;

import java.io.IOException;
import org.jverity.remote.ObjectChangedException;

/**
 * How a remote device's failure is told: apart from {@link DeviceErrors} so that it is the only
 * class naming jverity-remote's exceptions, loaded only once a remote read failed. Stateless.
 */
final class OriginFailure {
  private OriginFailure() {}

  /**
   * The line for {@code e} when it says the object changed since open ("data object changed since
   * open: ETag A -> B"), searched through its causes; null for any other failure.
   */
  static String changed(String role, IOException e) {
    for (Throwable t = e; t != null; t = t.getCause()) {
      if (t instanceof ObjectChangedException c) {
        return role
            + " object changed since open: ETag "
            + c.pinned().etag()
            + " -> "
            + (c.nowEtag() == null ? "(unknown)" : c.nowEtag());
      }
    }
    return null;
  }
}
