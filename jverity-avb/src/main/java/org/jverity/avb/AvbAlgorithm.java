package org.jverity.avb;

import java.util.Arrays;
import java.util.stream.Collectors;

/**
 * The vbmeta signing algorithms ({@code AvbAlgorithmType}), with avbtool's names and sizes. RSA
 * types sign PKCS#1 v1.5 over the digest of header ‖ aux; the ML-DSA types (Android 17) sign header
 * ‖ aux itself, and store no hash.
 */
public enum AvbAlgorithm {
  NONE(0, null, 0, 0, 0),
  SHA256_RSA2048(1, "sha256", 32, 2048, 8 + 2 * 2048 / 8),
  SHA256_RSA4096(2, "sha256", 32, 4096, 8 + 2 * 4096 / 8),
  SHA256_RSA8192(3, "sha256", 32, 8192, 8 + 2 * 8192 / 8),
  SHA512_RSA2048(4, "sha512", 64, 2048, 8 + 2 * 2048 / 8),
  SHA512_RSA4096(5, "sha512", 64, 4096, 8 + 2 * 4096 / 8),
  SHA512_RSA8192(6, "sha512", 64, 8192, 8 + 2 * 8192 / 8),
  /** FIPS 204 ML-DSA-65: a 3309-byte signature, a 1952-byte raw public key. */
  MLDSA65(7, null, 0, 0, 4 + 1952),
  /** FIPS 204 ML-DSA-87: a 4627-byte signature, a 2592-byte raw public key. */
  MLDSA87(8, null, 0, 0, 4 + 2592);

  private final int type;
  private final String hashName;
  private final int hashSize;
  private final int rsaBits;
  private final int publicKeySize;

  AvbAlgorithm(int type, String hashName, int hashSize, int rsaBits, int publicKeySize) {
    this.type = type;
    this.hashName = hashName;
    this.hashSize = hashSize;
    this.rsaBits = rsaBits;
    this.publicKeySize = publicKeySize;
  }

  /** The header's {@code algorithm_type}. */
  public int type() {
    return type;
  }

  /** The digest signed and stored in the auth block: "sha256", "sha512", or null (none stored). */
  public String hashName() {
    return hashName;
  }

  /** Bytes of the stored hash. */
  public int hashSize() {
    return hashSize;
  }

  /** Bytes of the signature. */
  public int signatureSize() {
    return switch (this) {
      case MLDSA65 -> 3309;
      case MLDSA87 -> 4627;
      default -> rsaBits / 8;
    };
  }

  /** Bytes of the public-key blob the aux block holds (AvbPublicKey's format). */
  public int publicKeySize() {
    return publicKeySize;
  }

  /** The authentication block: hash ‖ signature, zero-padded to 64 bytes. */
  public int authBlockSize() {
    return Layout.round64(hashSize + signatureSize());
  }

  /** The RSA modulus size in bits, 0 for NONE and ML-DSA. */
  public int rsaBits() {
    return rsaBits;
  }

  /** True for the RSA types. */
  public boolean isRsa() {
    return rsaBits > 0;
  }

  /** True for the ML-DSA types. */
  public boolean isMlDsa() {
    return this == MLDSA65 || this == MLDSA87;
  }

  /** The JCA name of the hash ("SHA-256"), null when none is stored. */
  String jcaHashName() {
    return hashName == null ? null : hashName.equals("sha256") ? "SHA-256" : "SHA-512";
  }

  /** The JCA signature algorithm: "SHA256withRSA", "ML-DSA-65", or null for NONE. */
  String jcaSignatureName() {
    return switch (this) {
      case NONE -> null;
      case MLDSA65 -> "ML-DSA-65";
      case MLDSA87 -> "ML-DSA-87";
      default -> hashName.toUpperCase() + "withRSA";
    };
  }

  /** The algorithm of a header's {@code algorithm_type}. */
  public static AvbAlgorithm ofType(long type) throws AvbFormatException {
    for (AvbAlgorithm a : values()) {
      if (a.type == type) {
        return a;
      }
    }
    throw new AvbFormatException(
        "vbmeta algorithm_type: "
            + Long.toUnsignedString(type)
            + " (expected: 0.."
            + (values().length - 1)
            + ")");
  }

  /** The algorithm named as avbtool's {@code --algorithm} names it. */
  public static AvbAlgorithm named(String name) {
    for (AvbAlgorithm a : values()) {
      if (a.name().equals(name)) {
        return a;
      }
    }
    throw new IllegalArgumentException(
        "algorithm: "
            + name
            + " (expected: one of "
            + Arrays.stream(values()).map(Enum::name).collect(Collectors.joining(", "))
            + ")");
  }
}
