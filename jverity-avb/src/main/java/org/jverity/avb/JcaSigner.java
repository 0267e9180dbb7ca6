package org.jverity.avb;

import java.nio.ByteBuffer;
import java.security.GeneralSecurityException;
import java.security.PrivateKey;
import java.security.Signature;

/** An {@link AvbSigner} over a JDK private key, after checking that the key fits the algorithm. */
record JcaSigner(AvbAlgorithm algorithm, PrivateKey key, byte[] blob) implements AvbSigner {
  static JcaSigner of(AvbAlgorithm algorithm, PrivateKey key, byte[] blob) {
    if (algorithm == AvbAlgorithm.NONE) {
      throw new IllegalArgumentException(
          "a key for algorithm NONE (expected: no key; NONE does not sign)");
    }
    requireFits(algorithm, blob, key.getAlgorithm());
    return new JcaSigner(algorithm, key, blob.clone());
  }

  /**
   * Refuses a key whose blob does not fit {@code algorithm} ("a 2048-bit RSA key (expected: 4096
   * bits for SHA256_RSA4096)").
   *
   * @param blob the key's blob; null when the key has none AVB stores
   * @param kind the key's kind, said when it has no blob
   * @throws IllegalArgumentException when the key does not fit
   */
  static void requireFits(AvbAlgorithm algorithm, byte[] blob, String kind) {
    if (blob == null || blob.length != algorithm.publicKeySize() || !fits(algorithm, blob)) {
      throw new IllegalArgumentException(
          describe(kind, blob) + " (expected: " + expected(algorithm) + " for " + algorithm + ")");
    }
  }

  @Override
  public byte[] publicKeyBlob() {
    return blob.clone();
  }

  @Override
  public byte[] sign(byte[] headerAndAux) throws GeneralSecurityException {
    Signature s = Signature.getInstance(algorithm.jcaSignatureName());
    s.initSign(key);
    s.update(headerAndAux);
    byte[] signature = s.sign();
    if (signature.length != algorithm.signatureSize()) {
      throw new GeneralSecurityException(
          algorithm
              + " signature: "
              + signature.length
              + " bytes (expected: "
              + algorithm.signatureSize()
              + ")");
    }
    return signature;
  }

  private static boolean fits(AvbAlgorithm algorithm, byte[] blob) {
    try {
      return algorithm.isRsa()
          ? AvbPublicKey.rsaBits(blob) == algorithm.rsaBits()
          : MlDsaKeys.algorithmOf(blob) == algorithm;
    } catch (AvbFormatException e) {
      return false;
    }
  }

  private static String describe(String kind, byte[] blob) {
    if (blob != null && blob.length >= 8 && !MlDsaKeys.isMlDsaBlob(blob)) {
      return "a " + Integer.toUnsignedString(ByteBuffer.wrap(blob).getInt(0)) + "-bit RSA key";
    }
    if (blob != null && blob.length >= 4) {
      return "an " + (blob.length == 4 + MlDsaKeys.RAW_65 ? "ML-DSA-65" : "ML-DSA-87") + " key";
    }
    return "a " + kind + " key";
  }

  private static String expected(AvbAlgorithm algorithm) {
    return algorithm.isRsa()
        ? algorithm.rsaBits() + " bits"
        : "an " + algorithm.jcaSignatureName() + " key";
  }
}
