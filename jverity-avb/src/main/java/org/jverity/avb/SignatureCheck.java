package org.jverity.avb;

import java.math.BigInteger;
import java.security.GeneralSecurityException;
import java.security.MessageDigest;
import java.security.PublicKey;
import java.security.Signature;
import java.util.HexFormat;

/**
 * libavb's signature check of a vbmeta: the hash of header ‖ aux against the stored hash, then the
 * signature with the embedded key (RSA: {@code key_num_bits} 2048/4096/8192, the blob's length, the
 * signature as long as the modulus, PKCS#1 v1.5 padding then the hash; ML-DSA: the signature of
 * header ‖ aux). Each mismatch is one line.
 */
final class SignatureCheck {
  private SignatureCheck() {}

  static boolean verify(VbmetaImage image) throws AvbVerificationException {
    AvbAlgorithm algorithm = image.algorithm();
    if (algorithm == AvbAlgorithm.NONE) {
      return false;
    }
    byte[] signed = image.signedBytes();
    byte[] key = image.publicKey();
    byte[] signature = image.signature();
    if (key.length == 0) {
      throw new AvbVerificationException(
          "vbmeta: signed with " + algorithm + " but no public key embedded");
    }
    if (algorithm.isRsa()) {
      byte[] computed = digest(algorithm, signed);
      byte[] stored = image.hash();
      if (!MessageDigest.isEqual(computed, stored)) {
        throw new AvbVerificationException(
            "vbmeta: hash mismatch (computed "
                + HexFormat.of().formatHex(computed)
                + ", stored "
                + HexFormat.of().formatHex(stored)
                + ")");
      }
      rsa(algorithm, key, signature, stored);
    } else {
      mlDsa(algorithm, key, signature, signed);
    }
    return true;
  }

  private static void rsa(AvbAlgorithm algorithm, byte[] key, byte[] signature, byte[] hash)
      throws AvbVerificationException {
    int bits;
    try {
      bits = AvbPublicKey.rsaBits(key);
    } catch (AvbFormatException e) {
      throw new AvbVerificationException("vbmeta: embedded key: " + e.getMessage());
    }
    if (bits != algorithm.rsaBits()) {
      throw new AvbVerificationException(
          "vbmeta: embedded key has "
              + bits
              + " bits (expected: "
              + algorithm.rsaBits()
              + " for "
              + algorithm
              + ")");
    }
    if (signature.length != bits / 8) {
      throw new AvbVerificationException(
          "vbmeta: signature is "
              + signature.length
              + " bytes (expected: "
              + bits / 8
              + ", the key's length)");
    }
    BigInteger n = AvbPublicKey.modulus(key, bits);
    BigInteger s = new BigInteger(1, signature);
    if (s.compareTo(n) >= 0) {
      throw new AvbVerificationException(
          "vbmeta: signature mismatch (signature not below the modulus)");
    }
    byte[] em = AvbPublicKey.fixed(s.modPow(AvbPublicKey.EXPONENT, n), bits / 8);
    byte[] expected = Pkcs1.encode(algorithm, hash, bits / 8);
    int prefix = expected.length - hash.length;
    for (int i = 0; i < prefix; i++) {
      if (em[i] != expected[i]) {
        throw new AvbVerificationException(
            "vbmeta: signature mismatch (PKCS#1 v1.5 padding check failed with the embedded key)");
      }
    }
    for (int i = prefix; i < em.length; i++) {
      if (em[i] != expected[i]) {
        throw new AvbVerificationException(
            "vbmeta: signature mismatch (the signed hash is not the stored hash)");
      }
    }
  }

  private static void mlDsa(AvbAlgorithm algorithm, byte[] key, byte[] signature, byte[] signed)
      throws AvbVerificationException {
    PublicKey publicKey;
    try {
      if (MlDsaKeys.algorithmOf(key) != algorithm) {
        throw new AvbVerificationException(
            "vbmeta: embedded key is not an " + algorithm.jcaSignatureName() + " key");
      }
      publicKey = MlDsaKeys.decode(key);
    } catch (AvbFormatException e) {
      throw new AvbVerificationException("vbmeta: embedded key: " + e.getMessage());
    }
    if (signature.length != algorithm.signatureSize()) {
      throw new AvbVerificationException(
          "vbmeta: signature is "
              + signature.length
              + " bytes (expected: "
              + algorithm.signatureSize()
              + " for "
              + algorithm
              + ")");
    }
    boolean ok;
    try {
      Signature v = Signature.getInstance(algorithm.jcaSignatureName());
      v.initVerify(publicKey);
      v.update(signed);
      ok = v.verify(signature);
    } catch (GeneralSecurityException e) {
      throw new AvbVerificationException("vbmeta: " + algorithm + " signature: " + e.getMessage());
    }
    if (!ok) {
      throw new AvbVerificationException(
          "vbmeta: signature mismatch (" + algorithm + " with the embedded key)");
    }
  }

  static byte[] digest(AvbAlgorithm algorithm, byte[] data) {
    try {
      return MessageDigest.getInstance(algorithm.jcaHashName()).digest(data);
    } catch (GeneralSecurityException e) {
      throw new IllegalStateException(algorithm.jcaHashName() + " is missing from this JDK", e);
    }
  }
}
