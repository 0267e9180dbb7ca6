package org.jverity.sig;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.PrivateKey;
import java.security.cert.X509Certificate;
import java.util.Collection;
import org.jverity.hash.HashAlgorithm;

/**
 * The fs-verity built-in signature: a detached DER PKCS#7 SignedData (no certificates, no
 * authenticated attributes, the signer named by issuer and serial number, the tree's hash as digest
 * algorithm) over the {@link #formattedDigest formatted digest} of the file. For an RSA key {@link
 * #sign} writes the same bytes as {@code fsverity sign} (PKCS#1 v1.5 is deterministic). Stateless
 * and thread-safe.
 */
public final class FsVeritySignature {
  private FsVeritySignature() {}

  /** {@code "FSVerity"}: the magic of {@code struct fsverity_formatted_digest}. */
  private static final byte[] MAGIC = "FSVerity".getBytes(StandardCharsets.US_ASCII);

  /**
   * fs-verity's number for a hash algorithm ({@code FS_VERITY_HASH_ALG_SHA256} = 1, {@code
   * FS_VERITY_HASH_ALG_SHA512} = 2).
   *
   * @throws IllegalArgumentException for an algorithm fs-verity does not support
   */
  public static int algorithmNumber(HashAlgorithm alg) {
    if (alg.equals(HashAlgorithm.SHA256)) {
      return 1;
    }
    if (alg.equals(HashAlgorithm.SHA512)) {
      return 2;
    }
    throw new IllegalArgumentException("hash algorithm: " + alg + " (expected: sha256 or sha512)");
  }

  /**
   * The signed bytes: {@code "FSVerity" ‖ le16 algorithm number ‖ le16 digest size ‖ digest} (12 +
   * digest size bytes).
   */
  public static byte[] formattedDigest(byte[] fileDigest, HashAlgorithm alg) {
    int number = algorithmNumber(alg);
    if (fileDigest.length != alg.digestSize()) {
      throw new IllegalArgumentException(
          "file digest: "
              + fileDigest.length
              + " bytes (expected: "
              + alg.digestSize()
              + " for "
              + alg
              + ")");
    }
    return ByteBuffer.allocate(MAGIC.length + 4 + fileDigest.length)
        .order(ByteOrder.LITTLE_ENDIAN)
        .put(MAGIC)
        .putShort((short) number)
        .putShort((short) fileDigest.length)
        .put(fileDigest)
        .array();
  }

  /**
   * Signs an fs-verity file digest as {@code fsverity sign} does.
   *
   * @param fileDigest the file digest ({@code fsverity digest}), {@code alg.digestSize()} bytes
   * @param alg the tree's hash, also the signature's digest algorithm
   * @param key an RSA or EC private key, {@code cert}'s
   * @param cert the signer's certificate: its issuer and serial number name the signer
   * @return the DER PKCS#7 signature
   * @throws GeneralSecurityException when the key cannot sign, or is not the certificate's
   */
  public static byte[] sign(
      byte[] fileDigest, HashAlgorithm alg, PrivateKey key, X509Certificate cert)
      throws GeneralSecurityException {
    return Pkcs7.signDetached(formattedDigest(fileDigest, alg), alg, key, cert);
  }

  /**
   * Checks that {@code signature} signs {@code fileDigest} (as an {@code alg} fs-verity digest)
   * with the key of one of the {@code trusted} certificates, its digest algorithm being {@code
   * alg}.
   *
   * @return the trusted certificate that made the signature
   * @throws InvalidSignatureException when it does not, saying why in one line
   */
  public static X509Certificate verify(
      byte[] signature, byte[] fileDigest, HashAlgorithm alg, Collection<X509Certificate> trusted)
      throws InvalidSignatureException {
    return Pkcs7.verifyDetached(
        "fs-verity signature", signature, formattedDigest(fileDigest, alg), alg, trusted);
  }
}
