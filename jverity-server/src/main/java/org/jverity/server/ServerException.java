package org.jverity.server;

/**
 * A failure of the server or of its configuration, as one line (the message) and what kind of
 * failure it is; the command line maps the kind to its exit code (the server has none).
 */
public final class ServerException extends RuntimeException {
  /** What went wrong. */
  public enum Reason {
    /** Options or keys that do not go together (TLS files without TLS). */
    CONFLICT,
    /** A value the server cannot use (a TLS mode, a port, a limit, a pid file). */
    INVALID_VALUE,
    /** A file, socket or process the server needs cannot be made, read or trusted. */
    IO
  }

  private final Reason reason;

  public ServerException(Reason reason, String message) {
    super(message);
    this.reason = reason;
  }

  public Reason reason() {
    return reason;
  }
}
