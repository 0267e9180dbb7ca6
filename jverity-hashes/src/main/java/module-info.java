/**
 * The hash algorithms veritysetup takes beyond the core's SHA-1, SHA-2 and SHA-3 (BLAKE2, SM3,
 * RIPEMD-160, Whirlpool, Streebog, MD4, MD5, the SHAKEs, Keccak-KMAC), under its names, from
 * BouncyCastle and the JDK. Kept out of the core so that the core depends on nothing; {@code
 * VeritysetupHashes.register()} makes them known to it.
 */
module org.jverity.hashes {
  requires org.jverity.core;
  requires org.bouncycastle.provider; // the digest classes, created directly

  exports org.jverity.hashes;
}
