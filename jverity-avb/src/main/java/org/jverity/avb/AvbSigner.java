package org.jverity.avb;

import java.security.GeneralSecurityException;
import java.security.KeyPair;
import java.security.PrivateKey;

/**
 * What signs a vbmeta: its algorithm, the public-key blob the vbmeta embeds, and the signature over
 * header ‖ aux. {@link #NONE} is {@code --algorithm NONE}; {@link #of} signs with a private key
 * through the JDK (RSA PKCS#1 v1.5, which is deterministic, as avbtool's {@code openssl rsautl
 * -sign} is; ML-DSA, which the JDK signs hedged (randomized: FIPS 204's default, with no API for
 * the deterministic variant avbroot uses), so an ML-DSA vbmeta verifies but is not byte-identical
 * from run to run). An external signer (a signing helper) implements this interface.
 */
public interface AvbSigner {
  /** No signature: no hash, no key, an empty auth block. */
  AvbSigner NONE =
      new AvbSigner() {
        @Override
        public AvbAlgorithm algorithm() {
          return AvbAlgorithm.NONE;
        }

        @Override
        public byte[] publicKeyBlob() {
          return new byte[0];
        }

        @Override
        public byte[] sign(byte[] headerAndAux) {
          return new byte[0];
        }

        @Override
        public String toString() {
          return "AvbSigner.NONE";
        }
      };

  AvbAlgorithm algorithm();

  /** The blob of the key that verifies {@link #sign}'s signatures; empty for NONE. */
  byte[] publicKeyBlob();

  /** The signature of header ‖ aux: PKCS#1 v1.5 of its hash (RSA), or ML-DSA of the bytes. */
  byte[] sign(byte[] headerAndAux) throws GeneralSecurityException;

  /**
   * A signer with an RSA private key (a CRT key, which carries its public half, as every PEM key
   * does). Refuses a key that does not fit the algorithm ("a 2048-bit RSA key (expected: 4096 bits
   * for SHA256_RSA4096)"); the caller adds which option gave the key. An ML-DSA private key does
   * not give its public key through the JDK: use {@link #of(AvbAlgorithm, KeyPair)}.
   *
   * @throws IllegalArgumentException when the key does not fit
   */
  static AvbSigner of(AvbAlgorithm algorithm, PrivateKey key) {
    if (algorithm.isMlDsa()) {
      throw new IllegalArgumentException(
          "a private key alone for "
              + algorithm
              + " (expected: the key pair: the JDK does not derive an ML-DSA public key)");
    }
    return JcaSigner.of(
        algorithm, key, key.getAlgorithm().equals("RSA") ? AvbPublicKey.blob(key) : null);
  }

  /** A signer with a key pair: RSA or ML-DSA. */
  static AvbSigner of(AvbAlgorithm algorithm, KeyPair keys) {
    return JcaSigner.of(algorithm, keys.getPrivate(), AvbPublicKey.blob(keys.getPublic()));
  }
}
