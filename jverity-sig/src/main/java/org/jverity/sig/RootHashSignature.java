package org.jverity.sig;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.PrivateKey;
import java.security.cert.X509Certificate;
import java.util.Collection;
import java.util.HexFormat;
import java.util.Locale;
import org.jverity.hash.HashAlgorithm;

/**
 * The dm-verity root-hash signature ({@code dm-verity-verify-sig.c}): a detached DER PKCS#7
 * SignedData over the root hash as the table carries it, lower-case hex ASCII without a newline, as
 * {@code openssl smime -sign -nocerts -noattr -binary -in roothash.txt -outform der} makes it and
 * {@code veritysetup open --root-hash-signature} passes to the kernel. Signed with SHA-256, as
 * openssl does by default. Stateless and thread-safe.
 */
public final class RootHashSignature {
  private RootHashSignature() {}

  /** The digest algorithm {@link #sign} uses (openssl smime's default). */
  public static final HashAlgorithm DIGEST = HashAlgorithm.SHA256;

  /** The signed bytes: the root hash in lower-case hex, as ASCII. */
  public static byte[] signedBytes(String rootHex) {
    String hex = rootHex.toLowerCase(Locale.ROOT);
    if (hex.isEmpty() || hex.length() % 2 != 0 || !HexFormat.isHexDigit(hex.charAt(0))) {
      throw new IllegalArgumentException(
          "root hash: '" + rootHex + "' (expected: hex digits, an even number)");
    }
    HexFormat.of().parseHex(hex); // rejects any other character
    return hex.getBytes(StandardCharsets.US_ASCII);
  }

  /**
   * Signs a root hash.
   *
   * @param rootHex the root hash in hex (written lower-case, as cryptsetup passes it to the kernel)
   * @throws GeneralSecurityException when the key cannot sign, or is not the certificate's
   */
  public static byte[] sign(String rootHex, PrivateKey key, X509Certificate cert)
      throws GeneralSecurityException {
    return Pkcs7.signDetached(signedBytes(rootHex), DIGEST, key, cert);
  }

  /**
   * Signs a root hash as systemd-repart signs a DDI's: as {@link #sign}, with the signer's
   * certificate in the PKCS#7 (systemd-dissect's userspace check reads it with {@code
   * PKCS7_NOINTERN} all the same, matching the certificates it trusts).
   */
  public static byte[] signWithCertificate(String rootHex, PrivateKey key, X509Certificate cert)
      throws GeneralSecurityException {
    return Pkcs7.signDetached(signedBytes(rootHex), DIGEST, key, cert, true);
  }

  /**
   * As {@link #signWithCertificate(String, PrivateKey, X509Certificate)}, the key held elsewhere:
   * {@code signer} makes the signature value over the signed bytes (SHA-256 with the certificate's
   * key: PKCS#1 v1.5 for RSA), which is checked with the certificate's key before the PKCS#7 is
   * assembled around it. With no signed attributes the PKCS#7 is the one the key at hand makes,
   * byte for byte when the signature value is deterministic (RSA).
   *
   * @throws GeneralSecurityException when the value does not verify with the certificate's key
   * @throws IOException when {@code signer} fails
   */
  public static byte[] signWithCertificate(
      String rootHex, X509Certificate cert, ExternalSigner signer)
      throws GeneralSecurityException, IOException {
    byte[] content = signedBytes(rootHex);
    return Pkcs7.assemble(
        content,
        DIGEST,
        cert,
        true,
        signer.sign(content),
        "the external signature does not verify with the certificate's key");
  }

  /**
   * Checks that {@code signature} signs the root hash with the key of one of the {@code trusted}
   * certificates (with any digest algorithm jverity knows, as the kernel accepts any).
   *
   * @return the trusted certificate that made the signature
   * @throws InvalidSignatureException when it does not, saying why in one line
   */
  public static X509Certificate verify(
      byte[] signature, String rootHex, Collection<X509Certificate> trusted)
      throws InvalidSignatureException {
    return Pkcs7.verifyDetached(
        "root hash signature", signature, signedBytes(rootHex), null, trusted);
  }
}
