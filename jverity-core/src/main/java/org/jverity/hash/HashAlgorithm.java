package org.jverity.hash;

import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Objects;
import java.util.Optional;
import java.util.function.Supplier;

/**
 * A hash algorithm: the name veritysetup writes to the superblock, and the {@link MessageDigest}
 * that computes it.
 *
 * <p>Built in, from the JDK: SHA-1, SHA-224, SHA-256, SHA-384, SHA-512, SHA-512/224, SHA-512/256
 * and SHA3-224/256/384/512, each under every name OpenSSL 3 (veritysetup's crypto backend) takes
 * for it. Any other digest can be added with {@link #of} and {@link #register}; the {@code
 * jverity-hashes} module registers the rest of veritysetup's (BLAKE2, SM3, RIPEMD-160, Whirlpool,
 * Streebog, …) from BouncyCastle, which the core does not depend on.
 *
 * <p>An alias is an algorithm of its own name with the same digest: {@code sha-256} hashes as
 * {@code sha256} does but is written to the superblock as {@code sha-256}, because veritysetup
 * writes the name it was given (in lower case). {@link #sameDigest} tells whether two names hash
 * alike; {@link #equals} also compares the name.
 *
 * <p>Immutable and thread-safe; the registry may be read and extended from any thread.
 */
public final class HashAlgorithm {
  /** Longest name: the superblock's algorithm field is 32 bytes, NUL-terminated. */
  public static final int MAX_NAME_LENGTH = 31;

  public static final HashAlgorithm SHA1 =
      builtin("sha1", "SHA-1", 20, 64, "sha-1", "ssl3-sha1", "1.3.14.3.2.26");
  public static final HashAlgorithm SHA224 =
      builtin("sha224", "SHA-224", 28, 64, "sha-224", "sha2-224", "2.16.840.1.101.3.4.2.4");
  public static final HashAlgorithm SHA256 =
      builtin("sha256", "SHA-256", 32, 64, "sha-256", "sha2-256", "2.16.840.1.101.3.4.2.1");
  public static final HashAlgorithm SHA384 =
      builtin("sha384", "SHA-384", 48, 128, "sha-384", "sha2-384", "2.16.840.1.101.3.4.2.2");
  public static final HashAlgorithm SHA512 =
      builtin("sha512", "SHA-512", 64, 128, "sha-512", "sha2-512", "2.16.840.1.101.3.4.2.3");
  public static final HashAlgorithm SHA512_224 =
      builtin(
          "sha512-224",
          "SHA-512/224",
          28,
          128,
          "sha-512/224",
          "sha2-512/224",
          "2.16.840.1.101.3.4.2.5");
  public static final HashAlgorithm SHA512_256 =
      builtin(
          "sha512-256",
          "SHA-512/256",
          32,
          128,
          "sha-512/256",
          "sha2-512/256",
          "2.16.840.1.101.3.4.2.6");
  // SHA-3's input block is its rate: 200 bytes of state less twice the digest.
  public static final HashAlgorithm SHA3_224 =
      builtin("sha3-224", "SHA3-224", 28, 144, "2.16.840.1.101.3.4.2.7");
  public static final HashAlgorithm SHA3_256 =
      builtin("sha3-256", "SHA3-256", 32, 136, "2.16.840.1.101.3.4.2.8");
  public static final HashAlgorithm SHA3_384 =
      builtin("sha3-384", "SHA3-384", 48, 104, "2.16.840.1.101.3.4.2.9");
  public static final HashAlgorithm SHA3_512 =
      builtin("sha3-512", "SHA3-512", 64, 72, "2.16.840.1.101.3.4.2.10");

  private final String kernelName; // as stored in the superblock: lower case, printable ASCII
  private final String jcaName; // names the digest function; aliases share it
  private final int digestSize; // bytes
  private final int inputBlockSize; // bytes the compression function (or sponge) consumes at a time
  private final Supplier<? extends MessageDigest> digests;

  private HashAlgorithm(
      String kernelName,
      String jcaName,
      int digestSize,
      int inputBlockSize,
      Supplier<? extends MessageDigest> digests) {
    this.kernelName = kernelName;
    this.jcaName = jcaName;
    this.digestSize = digestSize;
    this.inputBlockSize = inputBlockSize;
    this.digests = digests;
  }

  /**
   * An algorithm computed by any {@link MessageDigest}; {@link #register} it so that names resolve
   * to it. The supplier is called once per hashing thread and only then, so a digest from a heavy
   * library costs nothing to a run that never uses it.
   *
   * @param name as veritysetup writes it: printable ASCII, at most 31 characters, no colon (the
   *     image identity separates fields with it); stored in lower case
   * @param jcaName the digest function's standard name, e.g. {@code BLAKE2B-512}; algorithms with
   *     the same one (and size) hash alike
   * @param digestSize bytes each digest has; the supplier's digests must have this length
   * @param inputBlockSize bytes the function consumes at a time (64 for SHA-256, the rate for a
   *     sponge); fs-verity pads its salt to it
   * @param digests a fresh digest per call
   */
  public static HashAlgorithm of(
      String name,
      String jcaName,
      int digestSize,
      int inputBlockSize,
      Supplier<? extends MessageDigest> digests) {
    return new HashAlgorithm(
        checkName(name),
        Objects.requireNonNull(jcaName, "jcaName"),
        checkPositive("digest size", digestSize),
        checkPositive("input block size", inputBlockSize),
        Objects.requireNonNull(digests, "digests"));
  }

  /**
   * Makes {@code algorithm} and its aliases (other names for the same digest) known to {@link
   * #lookup}. Registering the same again is harmless.
   *
   * @return the algorithm now registered under {@code algorithm}'s name
   * @throws IllegalArgumentException if a name is taken by another digest
   */
  public static HashAlgorithm register(HashAlgorithm algorithm, String... aliases) {
    List<HashAlgorithm> named = new ArrayList<>(aliases.length);
    for (String alias : aliases) {
      named.add(algorithm.named(checkName(alias)));
    }
    return HashRegistry.register(algorithm, named);
  }

  /**
   * The algorithm of that name, in any case ({@code SHA256} and {@code sha256} alike), as
   * veritysetup accepts it, if one is registered. A name that none answers to is the caller's error
   * to phrase: {@code org.jverity.format.HashNames} phrases it as a parameter error.
   */
  public static Optional<HashAlgorithm> lookup(String name) {
    return HashRegistry.lookup(name);
  }

  /** Every algorithm registered under its own name (aliases left out), built-in ones first. */
  public static List<HashAlgorithm> registered() {
    return HashRegistry.primaries();
  }

  /**
   * The name as veritysetup writes it to the superblock, e.g. {@code sha256}; for most algorithms
   * also the Linux crypto API's name, which dm-verity's table takes.
   */
  public String kernelName() {
    return kernelName;
  }

  /** The digest function's standard name, e.g. {@code SHA-256}; the same for every alias. */
  public String jcaName() {
    return jcaName;
  }

  /** Digest size in bytes. */
  public int digestSize() {
    return digestSize;
  }

  /**
   * Bytes the compression function consumes at a time (64 for SHA-1/224/256, 128 for SHA-384/512,
   * the rate for SHA-3): fs-verity pads its salt to this, so the salted state can be computed once.
   */
  public int inputBlockSize() {
    return inputBlockSize;
  }

  /** Whether {@code other} computes the same digests, whatever its name. */
  public boolean sameDigest(HashAlgorithm other) {
    return jcaName.equals(other.jcaName)
        && digestSize == other.digestSize
        && inputBlockSize == other.inputBlockSize;
  }

  /** A fresh digest; each thread needs its own. */
  public MessageDigest newDigest() {
    MessageDigest d = digests.get();
    if (d.getDigestLength() != digestSize) { // a registration mistake would corrupt every tree
      throw new IllegalStateException(
          kernelName
              + ": the digest has "
              + d.getDigestLength()
              + " bytes (expected: "
              + digestSize
              + ")");
    }
    return d;
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof HashAlgorithm a && kernelName.equals(a.kernelName) && sameDigest(a);
  }

  @Override
  public int hashCode() {
    return kernelName.hashCode();
  }

  @Override
  public String toString() {
    return kernelName;
  }

  /** The same digest under another name. */
  private HashAlgorithm named(String name) {
    return new HashAlgorithm(name, jcaName, digestSize, inputBlockSize, digests);
  }

  private static HashAlgorithm builtin(
      String name, String jcaName, int digestSize, int inputBlockSize, String... aliases) {
    HashAlgorithm a =
        new HashAlgorithm(name, jcaName, digestSize, inputBlockSize, new JdkDigest(jcaName));
    return register(a, aliases);
  }

  /** Lower-cases {@code name} and checks that the superblock can hold it. */
  private static String checkName(String name) {
    Objects.requireNonNull(name, "name");
    String lower = name.toLowerCase(Locale.ROOT);
    boolean printable = true; // a loop, not a stream: this runs at start-up, where lambdas cost
    for (int i = 0; i < lower.length(); i++) {
      char c = lower.charAt(i);
      printable &= c >= 0x21 && c <= 0x7e && c != ':';
    }
    if (lower.isEmpty() || !printable || lower.length() > MAX_NAME_LENGTH) {
      throw new IllegalArgumentException(
          "hash algorithm name: \""
              + name
              + "\" (expected: 1 to 31 printable ASCII characters, no colon)");
    }
    return lower;
  }

  private static int checkPositive(String what, int n) {
    if (n < 1) {
      throw new IllegalArgumentException(what + ": " + n + " (expected: at least 1)");
    }
    return n;
  }

  /**
   * The JDK's digest of a name every JDK has (SHA-1, SHA-2, SHA-3). A record, not a lambda: the
   * built-in algorithms are made in every run, and a record costs no bootstrap at start-up.
   */
  private record JdkDigest(String jcaName) implements Supplier<MessageDigest> {
    @Override
    public MessageDigest get() {
      try {
        return MessageDigest.getInstance(jcaName);
      } catch (NoSuchAlgorithmException e) {
        throw new IllegalStateException("JDK without " + jcaName, e); // the JDK must have these
      }
    }
  }
}
