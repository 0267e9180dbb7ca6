package org.jverity.sig;

import java.io.IOException;
import java.security.GeneralSecurityException;

/**
 * Makes a signature value with a private key this process does not hold (a signing helper, an HSM,
 * a signing service): given the signed bytes, it returns what {@code Signature.sign()} would for
 * them with that key and the algorithm agreed with the caller. Its result is checked by the caller
 * with the public key, never trusted as it comes.
 */
@FunctionalInterface
public interface ExternalSigner {
  /**
   * The signature value of {@code content}.
   *
   * @throws IOException when the signer cannot be reached or fails
   */
  byte[] sign(byte[] content) throws GeneralSecurityException, IOException;
}
