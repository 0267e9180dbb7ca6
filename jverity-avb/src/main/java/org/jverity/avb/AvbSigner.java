package org.jverity.avb;

import java.io.IOException;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyPair;
import java.security.PrivateKey;
import java.security.PublicKey;
import java.security.interfaces.RSAPublicKey;

/**
 * What signs a vbmeta: its algorithm, the public-key blob the vbmeta embeds, and the signature over
 * header ‖ aux. {@link #NONE} is {@code --algorithm NONE}; {@link #of} signs with a private key
 * through the JDK (RSA PKCS#1 v1.5, which is deterministic, as avbtool's {@code openssl rsautl
 * -sign} is; ML-DSA, which the JDK signs hedged (randomized: FIPS 204's default, with no API for
 * the deterministic variant avbroot uses), so an ML-DSA vbmeta verifies but is not byte-identical
 * from run to run); {@link #withHelper} has an external program sign.
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

  /**
   * The signature of header ‖ aux: PKCS#1 v1.5 of its hash (RSA), or ML-DSA of the bytes.
   *
   * @throws AvbSigningException when an external signer fails
   */
  byte[] sign(byte[] headerAndAux) throws GeneralSecurityException, IOException;

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

  /**
   * A signer that has {@code helper} sign, as avbtool's {@code --signing_helper} does: RSA only
   * (the helper is given avbtool's PKCS#1 v1.5 block; avbtool defines no helper protocol for
   * ML-DSA). {@code keyPath} may hold the public key alone (PEM, or the AVB blob): the private key
   * is the helper's.
   *
   * @throws IllegalArgumentException when the algorithm is not RSA or the key does not fit it
   */
  static AvbSigner withHelper(AvbAlgorithm algorithm, Path keyPath, SigningHelper helper)
      throws IOException {
    requireRsa(algorithm, helper); // before the key file is read: the command line is wrong
    return withHelper(algorithm, AvbPublicKey.readBlob(keyPath), keyPath, helper);
  }

  /**
   * As {@link #withHelper(AvbAlgorithm, Path, SigningHelper)}, the public key given (a
   * certificate's): the helper is run as {@code HELPER ALGORITHM KEY}, {@code keyArgument} as KEY,
   * and its signatures are checked with {@code key}.
   *
   * @throws IllegalArgumentException when the algorithm is not RSA or the key does not fit it
   */
  static AvbSigner withHelper(
      AvbAlgorithm algorithm, PublicKey key, Path keyArgument, SigningHelper helper) {
    requireRsa(algorithm, helper);
    if (!(key instanceof RSAPublicKey)) {
      throw new IllegalArgumentException(
          helper.option()
              + " with a key of algorithm "
              + key.getAlgorithm()
              + " (expected: RSA: a helper is given a PKCS#1 v1.5 block to sign)");
    }
    return withHelper(algorithm, AvbPublicKey.blob(key), keyArgument, helper);
  }

  private static AvbSigner withHelper(
      AvbAlgorithm algorithm, byte[] blob, Path keyArgument, SigningHelper helper) {
    JcaSigner.requireFits(algorithm, blob, "public");
    return new HelperSigner(algorithm, blob, keyArgument, helper);
  }

  private static void requireRsa(AvbAlgorithm algorithm, SigningHelper helper) {
    if (!algorithm.isRsa()) {
      throw new IllegalArgumentException(
          helper.option()
              + " with "
              + algorithm
              + " (expected: an RSA algorithm: a helper is given a PKCS#1 v1.5 block to sign)");
    }
  }

  /** A signer with a key pair: RSA or ML-DSA. */
  static AvbSigner of(AvbAlgorithm algorithm, KeyPair keys) {
    return JcaSigner.of(algorithm, keys.getPrivate(), AvbPublicKey.blob(keys.getPublic()));
  }
}
