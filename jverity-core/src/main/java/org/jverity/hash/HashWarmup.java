package org.jverity.hash;

import java.security.MessageDigest;
import org.jverity.format.HashAlgorithm;

/**
 * Gets the JIT to compile the SHA intrinsics before the real hashing starts. Until the JVM's
 * optimising compiler has compiled the digest loop, SHA runs as plain Java at a fraction of the
 * SHA-NI speed; in a short-lived process that warm-up costs a third of the run. Hashing a small
 * buffer on an otherwise idle core while the command line is parsed and files are opened moves
 * that cost off the critical path.
 */
public final class HashWarmup {
  private static final int BLOCK = 4096;
  private static final long MAX_NANOS = 400_000_000L; // never more than 0.4 s of one core

  private HashWarmup() {}

  /** Starts warming up {@code algorithm} on a daemon thread and returns at once. */
  public static void start(HashAlgorithm algorithm) {
    Thread.ofPlatform().daemon().name("jverity-warmup").start(() -> run(algorithm));
  }

  private static void run(HashAlgorithm algorithm) {
    MessageDigest md = algorithm.newDigest();
    byte[] block = new byte[BLOCK];
    byte[] salt = new byte[32];
    long start = System.nanoTime();
    // 20000 blocks is well past the compile thresholds of every method on the path.
    for (int i = 0; i < 20_000 && System.nanoTime() - start < MAX_NANOS; i++) {
      md.update(salt);
      md.update(block, 0, BLOCK);
      block[i & (BLOCK - 1)] = md.digest()[0];
    }
  }
}
