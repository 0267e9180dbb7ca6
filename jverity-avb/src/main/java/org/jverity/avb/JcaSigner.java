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
    String what = describe(key, blob);
    if (blob == null || blob.length != algorithm.publicKeySize() || !fits(algorithm, blob)) {
      throw new IllegalArgumentException(
          what + " (expected: " + expected(algorithm) + " for " + algorithm + ")");
    }
    return new JcaSigner(algorithm, key, blob.clone());
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

  private static String describe(PrivateKey key, byte[] blob) {
    if (blob != null && blob.length >= 8 && !MlDsaKeys.isMlDsaBlob(blob)) {
      return "a " + Integer.toUnsignedString(ByteBuffer.wrap(blob).getInt(0)) + "-bit RSA key";
    }
    if (blob != null && blob.length >= 4) {
      return "an " + (blob.length == 4 + MlDsaKeys.RAW_65 ? "ML-DSA-65" : "ML-DSA-87") + " key";
    }
    return "a " + key.getAlgorithm() + " key";
  }

  private static String expected(AvbAlgorithm algorithm) {
    return algorithm.isRsa()
        ? algorithm.rsaBits() + " bits"
        : "an " + algorithm.jcaSignatureName() + " key";
  }
}
