package org.jverity.hashes;

import java.security.MessageDigest;
import java.util.function.Supplier;
import org.jverity.hash.HashAlgorithm;

/**
 * The hash algorithms veritysetup takes beyond the core's SHA-1, SHA-2 and SHA-3, under the names
 * it takes and writes to the superblock. Debian's veritysetup 2.6.1 hashes with OpenSSL 3.0 (its
 * default and legacy providers), which knows every name registered here except {@code stribog*} and
 * the shorter BLAKE2 lengths; those are what veritysetup built with libgcrypt or the kernel's
 * crypto API takes (cryptsetup's {@code crypto_gcrypt.c} and {@code crypto_kernel.c}), so that a
 * superblock such a build wrote reads here too.
 *
 * <p>Each algorithm is named here by its sizes; its digest is made only when it hashes (by {@link
 * DigestFactory}), so a run that hashes with SHA-256 loads no BouncyCastle class. Thread-safe.
 *
 * <p>An embedder, the server and the command line register them the same way, with {@link
 * #register()} before the first name is looked up (a superblock read, an option parsed). An
 * explicit call rather than a {@code ServiceLoader} provider: it costs a start-up only the twenty
 * registrations, and a lookup that misses needs no service scan to say what is known.
 */
public final class VeritysetupHashes {
  private static boolean registered; // guarded by the class

  private VeritysetupHashes() {}

  /** Registers every algorithm below, once per process; later calls return at once. */
  public static synchronized void register() {
    if (registered) {
      return;
    }
    // OpenSSL's names and OIDs; cryptsetup maps blake2b-512 and blake2s-256 to OpenSSL's
    // blake2b512 and blake2s256, and writes whichever the user gave.
    add("blake2b-512", "BLAKE2B-512", 64, 128, "blake2b512", "1.3.6.1.4.1.1722.12.2.1.16");
    add("blake2s-256", "BLAKE2S-256", 32, 64, "blake2s256", "1.3.6.1.4.1.1722.12.2.2.8");
    add("sm3", "SM3", 32, 64, "1.2.156.10197.1.401");
    add("ripemd160", "RIPEMD160", 20, 64, "ripemd", "ripemd-160", "rmd160", "1.3.36.3.2.1");
    add("whirlpool", "WHIRLPOOL", 64, 64, "1.0.10118.3.0.55");
    add("md5", "MD5", 16, 64, "ssl3-md5", "1.2.840.113549.2.5");
    add("md4", "MD4", 16, 64, "1.2.840.113549.2.4");
    add("md5-sha1", "MD5-SHA1", 36, 64); // MD5 ‖ SHA-1, TLS 1.0's
    // At the default lengths OpenSSL 3.0 gives the SHAKEs (OpenSSL 3.4 dropped them, so a
    // veritysetup linked with it is not expected to take these); the input block is the rate.
    add("shake128", "SHAKE128", 16, 168, "shake-128", "2.16.840.1.101.3.4.2.11");
    add("shake256", "SHAKE256", 32, 136, "shake-256", "2.16.840.1.101.3.4.2.12");
    add("keccak-kmac-128", "KECCAK-KMAC-128", 32, 168, "keccak-kmac128");
    add("keccak-kmac-256", "KECCAK-KMAC-256", 64, 136, "keccak-kmac256");
    // libgcrypt's and the kernel backend's names (not OpenSSL's).
    add("stribog256", "GOST3411-2012-256", 32, 64);
    add("stribog512", "GOST3411-2012-512", 64, 64);
    add("blake2b-384", "BLAKE2B-384", 48, 128);
    add("blake2b-256", "BLAKE2B-256", 32, 128);
    add("blake2b-160", "BLAKE2B-160", 20, 128);
    add("blake2s-224", "BLAKE2S-224", 28, 64);
    add("blake2s-160", "BLAKE2S-160", 20, 64);
    add("blake2s-128", "BLAKE2S-128", 16, 64);
    registered = true;
  }

  private static void add(
      String name, String jcaName, int digestSize, int inputBlockSize, String... aliases) {
    HashAlgorithm.register(
        HashAlgorithm.of(name, jcaName, digestSize, inputBlockSize, new Lazy(jcaName)), aliases);
  }

  /**
   * Makes a digest through {@link DigestFactory} when asked, not before. A record rather than a
   * lambda: it costs no bootstrap at start-up, and it names no BouncyCastle type, so loading it
   * loads none.
   */
  private record Lazy(String jcaName) implements Supplier<MessageDigest> {
    @Override
    public MessageDigest get() {
      return DigestFactory.create(jcaName);
    }
  }
}
