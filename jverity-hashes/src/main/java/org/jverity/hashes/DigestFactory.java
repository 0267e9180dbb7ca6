package org.jverity.hashes;

import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import org.bouncycastle.jcajce.provider.digest.Blake2b;
import org.bouncycastle.jcajce.provider.digest.Blake2s;
import org.bouncycastle.jcajce.provider.digest.GOST3411;
import org.bouncycastle.jcajce.provider.digest.MD4;
import org.bouncycastle.jcajce.provider.digest.RIPEMD160;
import org.bouncycastle.jcajce.provider.digest.SM3;
import org.bouncycastle.jcajce.provider.digest.Whirlpool;

/**
 * Makes the digests {@link VeritysetupHashes} names: the JDK's where it has them, else
 * BouncyCastle's digest classes, created directly (building BouncyCastle's JCA provider would load
 * hundreds of classes for one digest). Loaded only when one of these algorithms hashes.
 */
final class DigestFactory {
  private DigestFactory() {}

  /** A fresh digest for a name {@link VeritysetupHashes} registers. */
  static MessageDigest create(String jcaName) {
    return switch (jcaName) {
      case "BLAKE2B-512" -> new Blake2b.Blake2b512();
      case "BLAKE2B-384" -> new Blake2b.Blake2b384();
      case "BLAKE2B-256" -> new Blake2b.Blake2b256();
      case "BLAKE2B-160" -> new Blake2b.Blake2b160();
      case "BLAKE2S-256" -> new Blake2s.Blake2s256();
      case "BLAKE2S-224" -> new Blake2s.Blake2s224();
      case "BLAKE2S-160" -> new Blake2s.Blake2s160();
      case "BLAKE2S-128" -> new Blake2s.Blake2s128();
      case "SM3" -> new SM3.Digest();
      case "RIPEMD160" -> new RIPEMD160.Digest();
      case "WHIRLPOOL" -> new Whirlpool.Digest();
      case "MD4" -> new MD4.Digest();
      case "GOST3411-2012-256" -> new GOST3411.Digest2012_256();
      case "GOST3411-2012-512" -> new GOST3411.Digest2012_512();
      case "KECCAK-KMAC-128" -> new KeccakKmacDigest(128);
      case "KECCAK-KMAC-256" -> new KeccakKmacDigest(256);
      case "MD5" -> jdk("MD5");
      case "MD5-SHA1" -> new ConcatenatedDigest("MD5-SHA1", jdk("MD5"), jdk("SHA-1"));
      // A SHAKE's shorter output is a prefix of its longer one.
      case "SHAKE128" -> new TruncatedDigest("SHAKE128", jdk("SHAKE128-256"), 16);
      case "SHAKE256" -> new TruncatedDigest("SHAKE256", jdk("SHAKE256-512"), 32);
      default ->
          throw new IllegalArgumentException(
              "digest: " + jcaName + " (not one VeritysetupHashes names)");
    };
  }

  private static MessageDigest jdk(String name) {
    try {
      return MessageDigest.getInstance(name);
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("JDK without " + name, e); // JDK 25 has MD5, SHA-1, SHAKE
    }
  }
}
