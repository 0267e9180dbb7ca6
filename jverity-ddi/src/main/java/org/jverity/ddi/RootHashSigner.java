package org.jverity.ddi;

import java.io.IOException;
import java.security.GeneralSecurityException;
import java.security.PrivateKey;
import java.security.cert.X509Certificate;
import org.jverity.sig.RootHashSignature;

/**
 * Signs a DDI's root hash for its signature partition: a key and certificate at hand, or a key held
 * elsewhere (a signing helper, a signature joined later). One call per build.
 */
@FunctionalInterface
public interface RootHashSigner {
  /**
   * The signature partition's contents for {@code rootHex}.
   *
   * @throws GeneralSecurityException when the key cannot sign
   */
  VeritySignature sign(String rootHex) throws IOException, GeneralSecurityException;

  /** As systemd-repart signs: the PKCS#7 with the certificate, and its fingerprint in the JSON. */
  static RootHashSigner of(PrivateKey key, X509Certificate cert) {
    return rootHex ->
        new VeritySignature(
            rootHex,
            VeritySignature.fingerprint(cert),
            RootHashSignature.signWithCertificate(rootHex, key, cert));
  }
}
