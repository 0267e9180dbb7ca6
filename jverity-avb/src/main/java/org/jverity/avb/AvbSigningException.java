package org.jverity.avb;

import java.io.IOException;

/**
 * A signer gave no signature the vbmeta can carry: a signing helper that failed, or returned bytes
 * that are not a signature by the key it was named ({@code --key}). Nothing has been written. The
 * message is one line naming the helper and what it did.
 */
public final class AvbSigningException extends IOException {
  private static final long serialVersionUID = 1L;

  public AvbSigningException(String message) {
    super(message);
  }

  public AvbSigningException(String message, Throwable cause) {
    super(message, cause);
  }
}
