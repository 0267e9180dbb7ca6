package org.jverity.format;

import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.Locale;
import org.jverity.internal.LibCrypto;
import org.jverity.internal.LibCryptoDigest;

/**
 * Hash algorithms jverity supports, by their kernel crypto API / veritysetup name (what the
 * superblock stores) and their JCA name.
 */
public enum HashAlgorithm {
  SHA1("sha1", "SHA-1", "SHA1", 20, 64),
  SHA224("sha224", "SHA-224", "SHA224", 28, 64),
  SHA256("sha256", "SHA-256", "SHA256", 32, 64),
  SHA384("sha384", "SHA-384", "SHA384", 48, 128),
  SHA512("sha512", "SHA-512", "SHA512", 64, 128);

  private final String kernelName;
  private final String jcaName;
  private final String opensslName; // prefix of libcrypto's SHA256_Init etc.
  private final int digestSize; // bytes
  private final int inputBlockSize; // bytes the compression function consumes at a time

  HashAlgorithm(String kernelName, String jcaName, String opensslName, int digestSize, int inputBlockSize) {
    this.kernelName = kernelName;
    this.jcaName = jcaName;
    this.opensslName = opensslName;
    this.digestSize = digestSize;
    this.inputBlockSize = inputBlockSize;
  }

  /** Lower-case name as veritysetup writes it to the superblock, e.g. {@code sha256}. */
  public String kernelName() {
    return kernelName;
  }

  public String jcaName() {
    return jcaName;
  }

  /** Digest size in bytes. */
  public int digestSize() {
    return digestSize;
  }

  /**
   * Bytes the compression function consumes at a time (64 for SHA-1/224/256, 128 for
   * SHA-384/512): fs-verity pads its salt to this, so the salted state can be computed once.
   */
  public int inputBlockSize() {
    return inputBlockSize;
  }

  /**
   * A fresh digest; each thread needs its own. The JDK's, unless {@code -Djverity.digest=libcrypto}
   * asks for the system's libcrypto (see {@code org.jverity.internal.LibCrypto} for why that is
   * not the default); asked for and missing, it is an error, not a silent fallback.
   */
  public MessageDigest newDigest() {
    if (LibCrypto.MODE.equals("libcrypto")) {
      return LibCryptoDigest.of(jcaName, opensslName, digestSize).orElseThrow(() -> new IllegalStateException(
          "-Djverity.digest=libcrypto: no usable libcrypto for " + kernelName));
    }
    return newJdkDigest();
  }

  /** A fresh digest computed by the JDK's own provider. */
  public MessageDigest newJdkDigest() {
    try {
      return MessageDigest.getInstance(jcaName);
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("JDK without " + jcaName, e); // every JDK has these
    }
  }

  /** Parses a veritysetup name, in any case ({@code SHA256} and {@code sha256} alike). */
  public static HashAlgorithm fromName(String name) {
    String lower = name.toLowerCase(Locale.ROOT);
    for (HashAlgorithm a : values()) {
      if (a.kernelName.equals(lower)) {
        return a;
      }
    }
    throw new VerityParameterException(
        "hash algorithm: " + name + " (expected: sha1, sha224, sha256, sha384 or sha512)");
  }

  @Override
  public String toString() {
    return kernelName;
  }
}
