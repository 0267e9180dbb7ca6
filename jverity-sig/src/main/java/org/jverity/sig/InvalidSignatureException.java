package org.jverity.sig;

import java.security.SignatureException;

/**
 * A signature that does not establish trust: unreadable, made by no trusted certificate, over other
 * bytes, or with another digest algorithm than the one required. The message is one line naming
 * what failed; callers branch on {@link #reason()}, never on the message.
 */
public final class InvalidSignatureException extends SignatureException {
  private static final long serialVersionUID = 1L;

  /** Why a signature was refused. */
  public enum Reason {
    /** Not a DER PKCS#7/CMS SignedData with one signer (truncated, garbage, wrong structure). */
    MALFORMED,
    /** No trusted certificate matches the signer (issuer and serial number, or key identifier). */
    UNTRUSTED_SIGNER,
    /** The signer's digest algorithm is not the one the signed digest requires. */
    WRONG_DIGEST_ALGORITHM,
    /** The cryptographic check failed: forged, altered, or over other bytes. */
    BAD_SIGNATURE
  }

  private final Reason reason;

  public InvalidSignatureException(Reason reason, String message) {
    super(message);
    this.reason = reason;
  }

  public InvalidSignatureException(Reason reason, String message, Throwable cause) {
    super(message, cause);
    this.reason = reason;
  }

  public Reason reason() {
    return reason;
  }
}
