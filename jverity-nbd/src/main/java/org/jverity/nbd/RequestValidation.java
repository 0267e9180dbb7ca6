package org.jverity.nbd;

/**
 * Whether a request may be served, as nbdkit's {@code validate_request}: the command known, its
 * flags valid for it, its range inside the export and within the limits, what it needs negotiated.
 * WRITE (whose payload must be drained first), DISC and shutting down are the connection's, before
 * this. EOVERFLOW only under DF, as nbdkit's {@code nbd_errno}: a client that did not ask for one
 * chunk does not know the error. Stateless.
 */
final class RequestValidation {
  private RequestValidation() {}

  /** Why {@code h} cannot be served on {@code s}, or null when it can. */
  static Refusal validate(RequestHeader h, Session s, ServerLimits limits) {
    NbdCommand cmd = h.command();
    if (cmd == null) {
      return new Refusal(NbdError.EINVAL, "unknown command " + h.type());
    }
    if ((h.flags() & ~cmd.flags) != 0 || (h.has(Nbd.CMD_FLAG_DF) && !s.structured())) {
      return new Refusal(
          NbdError.EINVAL,
          "command flags 0x" + Integer.toHexString(h.flags()) + " are not valid for " + cmd.label);
    }
    return switch (cmd) {
      case FLUSH ->
          h.offset() != 0 || h.length() != 0
              ? new Refusal(NbdError.EINVAL, "flush takes no range")
              : null;
      case TRIM, WRITE_ZEROES -> new Refusal(NbdError.EPERM, "the export is read-only");
      case READ, CACHE, BLOCK_STATUS -> range(cmd, h, s, limits);
      default -> new Refusal(NbdError.EINVAL, "unexpected command " + cmd.label);
    };
  }

  /** Why a READ, CACHE or BLOCK_STATUS cannot be served, or null. */
  private static Refusal range(NbdCommand cmd, RequestHeader h, Session s, ServerLimits limits) {
    long offset = h.offset();
    long length = h.length();
    long size = s.export().size();
    if (length == 0) {
      return new Refusal(NbdError.EINVAL, "zero-length " + cmd.label);
    }
    if (offset < 0 || offset > size - length) {
      return new Refusal(
          NbdError.EINVAL,
          cmd.label
              + " of "
              + length
              + " bytes at "
              + offset
              + " is outside the export ("
              + size
              + " bytes)");
    }
    if (cmd == NbdCommand.READ && length > limits.maxRequestLength()) {
      return new Refusal(
          h.has(Nbd.CMD_FLAG_DF) ? NbdError.EOVERFLOW : NbdError.EINVAL,
          "read of " + length + " bytes (expected: at most " + limits.maxRequestLength() + ")");
    }
    if (cmd == NbdCommand.BLOCK_STATUS && !s.blockStatus()) {
      return new Refusal(NbdError.EINVAL, "block status without base:allocation selected");
    }
    return null;
  }
}
