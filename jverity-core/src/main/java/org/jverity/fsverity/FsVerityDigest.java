package org.jverity.fsverity;

import java.security.MessageDigest;
import java.util.Arrays;
import java.util.Locale;
import java.util.Objects;
import org.jverity.format.Hex;
import org.jverity.format.VerityParameterException;
import org.jverity.hash.HashAlgorithm;

/**
 * An fs-verity file digest: the hash of the file's descriptor, written {@code sha256:hex} as {@code
 * fsverity digest} prints it and the kernel logs it ({@code alg:hex}). The one place that text is
 * made and read. Immutable.
 *
 * @param algorithm SHA-256 or SHA-512, fs-verity's two algorithms
 * @param bytes the digest, as long as the algorithm's
 */
public record FsVerityDigest(HashAlgorithm algorithm, byte[] bytes) {

  public FsVerityDigest {
    Objects.requireNonNull(algorithm, "algorithm");
    if (!algorithm.equals(HashAlgorithm.SHA256) && !algorithm.equals(HashAlgorithm.SHA512)) {
      throw new VerityParameterException(
          "fs-verity digest algorithm: " + algorithm + " (expected: sha256 or sha512)");
    }
    if (bytes.length != algorithm.digestSize()) {
      throw new VerityParameterException(
          "fs-verity digest: "
              + bytes.length
              + " bytes (expected: "
              + algorithm.digestSize()
              + " for "
              + algorithm
              + ")");
    }
    bytes = bytes.clone();
  }

  /**
   * {@code sha256:HEX} or {@code sha512:HEX} (the name in any case).
   *
   * @throws VerityParameterException naming what is wrong: no algorithm, one fs-verity does not
   *     have, hex that is not, or a length that is not the algorithm's
   */
  public static FsVerityDigest parse(String text) {
    Objects.requireNonNull(text, "digest");
    int colon = text.indexOf(':');
    if (colon < 0) {
      throw new VerityParameterException(
          "fs-verity digest: " + abbreviate(text) + " (expected: sha256:HEX or sha512:HEX)");
    }
    String name = text.substring(0, colon).toLowerCase(Locale.ROOT);
    HashAlgorithm alg =
        switch (name) {
          case "sha256" -> HashAlgorithm.SHA256;
          case "sha512" -> HashAlgorithm.SHA512;
          default ->
              throw new VerityParameterException(
                  "fs-verity digest algorithm: "
                      + abbreviate(name)
                      + " (expected: sha256 or sha512)");
        };
    return new FsVerityDigest(alg, Hex.parse("fs-verity digest", text.substring(colon + 1)));
  }

  @Override
  public byte[] bytes() {
    return bytes.clone();
  }

  /** Whether {@code other} is the same digest, compared in constant time. */
  public boolean matches(FsVerityDigest other) {
    return algorithm.equals(other.algorithm) && MessageDigest.isEqual(bytes, other.bytes);
  }

  /** {@code sha256:hex}, lower case, as {@code fsverity digest} prints it. */
  @Override
  public String toString() {
    return algorithm.kernelName() + ":" + Hex.format(bytes);
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof FsVerityDigest d
        && d.algorithm.equals(algorithm)
        && Arrays.equals(d.bytes, bytes);
  }

  @Override
  public int hashCode() {
    return algorithm.hashCode() * 31 + Arrays.hashCode(bytes);
  }

  private static String abbreviate(String s) {
    return s.length() <= 80 ? s : s.substring(0, 77) + "...";
  }
}
