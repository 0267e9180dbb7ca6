package org.jverity.remote;

import java.io.IOException;

/**
 * A remote origin failed a request, or answered it wrongly (a 200 to a range request, a wrong
 * {@code Content-Range}, a short body), after the retries it was allowed: one line naming the
 * origin, the range and what came back. The read that needed it fails (EIO to an NBD client); the
 * server stays up.
 */
public class OriginException extends IOException {
  private static final long serialVersionUID = 1L;

  /** The HTTP status, or 0 when none came (a connect error, a reset, a timeout). */
  private final int status;

  public OriginException(String message, int status) {
    super(message);
    this.status = status;
  }

  public OriginException(String message, int status, Throwable cause) {
    super(message, cause);
    this.status = status;
  }

  public int status() {
    return status;
  }
}
