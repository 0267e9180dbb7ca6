package org.jverity.hash;

import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;
import org.jverity.internal.NativeLibrary;

/**
 * The native block-hashing loop ({@link NativeLibrary}, {@code src/main/c/hash_blocks.c}): a run of
 * blocks hashed by the system's libcrypto in one JNI call.
 *
 * <p>Why: a one-shot command is a whole process, and the JDK's SHA-2 reaches its full speed only
 * once the JIT has compiled it, ~400 ms in; until then blocks hash at ~70 MB/s a core. libcrypto
 * runs SHA-NI from its first call, and one call per run of blocks costs nothing even interpreted.
 * JNI, not FFM: loading the library and the first call take ~4 ms, where FFM's first downcall
 * handle took ~50 ms to bind on this machine even from an AOT cache.
 *
 * <p>Without the library, or when its self-test disagrees with the JDK, hashing stays in Java with
 * identical results. Each algorithm is self-tested on first use, both salt placements, from a heap
 * array and a direct buffer, against the JDK's answers.
 */
final class NativeHashing {
  /** Longest salt the library takes (its MAX_SALT): longer ones are hashed in Java. */
  static final int MAX_SALT = 1024;

  private static final int OK = 0;

  /** libcrypto's version line, read once the library is loaded. */
  private static final class Libcrypto {
    static final String VERSION = libcryptoVersion();

    /**
     * Whether SHA-256 runs go two blocks at a time (SHA-NI, or ARMv8 SHA-2 on arm64;
     * JVERITY_SHA256_X2=off turns it off).
     */
    static final boolean SHA256_TWO_STREAMS = sha256TwoStreams0();
  }

  /**
   * Whether the loaded library hashes runs of SHA-256 blocks two at a time (this CPU has SHA-NI and
   * {@code JVERITY_SHA256_X2} is not {@code off}); false without the library.
   */
  static boolean sha256TwoStreams() {
    return NativeLibrary.loaded() && Libcrypto.SHA256_TWO_STREAMS;
  }

  /**
   * How many pairs of SHA-256 blocks the loaded library has hashed two at a time since it was
   * loaded (0 without it): how a test tells that a path used the two streams.
   */
  static long sha256PairsHashed() {
    return NativeLibrary.loaded() ? sha256PairsHashed0() : 0;
  }

  /** Per algorithm (its kernel name): whether its self-test passed (absent: not tested yet). */
  private static final ConcurrentMap<String, Boolean> TESTED = new ConcurrentHashMap<>();

  /** Set once a hasher asked for the loop: the --debug note is only worth printing then. */
  private static volatile boolean asked;

  private NativeHashing() {}

  /**
   * The library's code for {@code algorithm}, when the loop is loaded and self-tested for it and
   * takes {@code salt}; empty otherwise (hash in Java).
   */
  static Optional<Integer> codeFor(HashAlgorithm algorithm, byte[] salt) {
    asked = true;
    Integer code = code(algorithm);
    if (code == null || salt.length > MAX_SALT || !NativeLibrary.loaded()) {
      return Optional.empty();
    }
    return TESTED.computeIfAbsent(algorithm.kernelName(), n -> selfTest(algorithm, code))
        ? Optional.of(code)
        : Optional.empty();
  }

  /** The JNI call; the caller has checked every index (the library checks them again). */
  static void hashBlocks(
      int code,
      byte[] salt,
      boolean saltFirst,
      byte[] blocks,
      int off,
      int blockSize,
      int count,
      byte[] out,
      int outOff,
      int stride) {
    int r = hashRun(code, salt, saltFirst, blocks, off, blockSize, count, out, outOff, stride);
    if (r != OK) {
      throw new IllegalStateException("native hashing loop failed: " + r);
    }
  }

  /**
   * As {@link #hashBlocks(int, byte[], boolean, byte[], int, int, int, byte[], int, int)}, the run
   * starting at byte {@code off} of a direct buffer (its position and limit are not looked at).
   */
  static void hashBlocks(
      int code,
      byte[] salt,
      boolean saltFirst,
      ByteBuffer direct,
      int off,
      int blockSize,
      int count,
      byte[] out,
      int outOff,
      int stride) {
    int r =
        hashRunDirect(code, salt, saltFirst, direct, off, blockSize, count, out, outOff, stride);
    if (r != OK) {
      throw new IllegalStateException("native hashing loop failed: " + r);
    }
  }

  /**
   * Two SHA-256 blocks that lie apart, hashed together by the two-stream path (the caller asked
   * {@link #sha256TwoStreams} and checked every index; the library checks them again).
   */
  static void hashTwo(
      byte[] salt,
      boolean saltFirst,
      byte[] a,
      int aOff,
      byte[] b,
      int bOff,
      int len,
      byte[] out,
      int outA,
      int outB) {
    int r = hashTwo0(salt, saltFirst, a, aOff, b, bOff, len, out, outA, outB);
    if (r != OK) {
      throw new IllegalStateException("native two-block hashing failed: " + r);
    }
  }

  /**
   * One line on which path bulk hashing took, for {@code --debug}; empty when nothing asked (a
   * command that hashed no run of blocks).
   */
  static Optional<String> note() {
    if (!asked) {
      return Optional.empty();
    }
    if (!NativeLibrary.loaded()) {
      return Optional.of(
          "Block hashing: in Java (native loop not loaded: " + NativeLibrary.problem() + ")");
    }
    StringBuilder b = new StringBuilder("Block hashing: native loop over ");
    b.append(Libcrypto.VERSION);
    if (Libcrypto.SHA256_TWO_STREAMS) {
      b.append("; SHA-256 two blocks at a time (")
          .append("aarch64".equals(System.getProperty("os.arch")) ? "ARMv8 SHA-2" : "SHA-NI")
          .append(", ")
          .append(sha256PairsHashed0())
          .append(" pairs)");
    }
    TESTED.forEach(
        (name, ok) -> b.append(ok ? "" : "; " + name + " in Java (failed its self-test)"));
    return Optional.of(b.toString());
  }

  /** The library's numbering (hash_blocks.c's ALG_*), or null for an algorithm it lacks. */
  private static Integer code(HashAlgorithm algorithm) {
    if (algorithm.equals(HashAlgorithm.SHA1)) {
      return 1;
    } else if (algorithm.equals(HashAlgorithm.SHA224)) {
      return 2;
    } else if (algorithm.equals(HashAlgorithm.SHA256)) {
      return 3;
    } else if (algorithm.equals(HashAlgorithm.SHA384)) {
      return 4;
    } else if (algorithm.equals(HashAlgorithm.SHA512)) {
      return 5;
    }
    return null;
  }

  /**
   * What the self-test's runs give, per algorithm: the algorithm's digest of every digest they
   * write, in order (see {@link #selfTestRuns}). Computed with the JDK, and recomputed so by
   * NativeHashingTest: the self-test compares the loop with the JDK's answers without starting the
   * JDK's providers, which costs a one-shot command ~25 ms before its first block.
   */
  static final Map<String, String> KNOWN_ANSWERS =
      Map.of(
          "sha1", "91a924c9e2b4efdd520afbdf091ba6f1ff13ae1b",
          "sha224", "da08ceb9aef7c15522c91e950e2fa81a7a2f154d9ce5b7579d1af6a4",
          "sha256", "2922c1bf99c631b8a8f86087a3c7cbfc7f0f3791bcaf62dac9bf3b4200097981",
          "sha384",
              "1f773efe322bb8149643b99e586648eb9f0479c0a508e8e7003dfe7682547bc8fb4a7bdec24af5860c483821ea5efb95",
          "sha512",
              "30352a99fc10f2ba0de2f0bcac7a77660345d288ffaad658a7bb7c410720ee4ba0306ecf61fa198630e44a184137f2fe91ab82652740a7f042206015d808d7ed");

  /** A way to hash a run of blocks: the native loop's, or (in the tests) the JDK's. */
  interface Run {
    void hash(
        byte[] salt,
        boolean saltFirst,
        byte[] blocks,
        int off,
        int blockSize,
        int count,
        byte[] out,
        int outOff,
        int stride);
  }

  /**
   * Short runs through both salt placements and salt lengths either side of the hash's input block,
   * blocks not aligned to it, digests a few bytes apart: every digest written, in order, with the
   * zeros between them.
   */
  static byte[] selfTestRuns(HashAlgorithm algorithm, Run run) {
    int size = algorithm.digestSize();
    int blockSize = 97;
    int count = 3;
    int stride = size + 5;
    byte[] blocks = pattern(1 + blockSize * count, 1);
    int[] saltLengths = {0, 7, algorithm.inputBlockSize(), 300};
    byte[] all = new byte[saltLengths.length * 2 * stride * count];
    int at = 0;
    for (int saltLength : saltLengths) {
      byte[] salt = pattern(saltLength, saltLength);
      for (boolean saltFirst : new boolean[] {true, false}) {
        run.hash(salt, saltFirst, blocks, 1, blockSize, count, all, at, stride);
        at += stride * count;
      }
    }
    return all;
  }

  /** Bytes that differ from block to block and salt to salt, without a random generator. */
  private static byte[] pattern(int length, int seed) {
    byte[] b = new byte[length];
    for (int i = 0; i < length; i++) {
      b[i] = (byte) (i * 31 + seed * 7 + (i >>> 8));
    }
    return b;
  }

  /**
   * The self-test: the runs through the heap and the direct entry point agree, and hash to the
   * JDK's known answer.
   */
  private static boolean selfTest(HashAlgorithm algorithm, int code) {
    String expected = KNOWN_ANSWERS.get(algorithm.kernelName());
    if (expected == null) {
      return false;
    }
    int[] failures = {0};
    byte[] fromHeap =
        selfTestRuns(
            algorithm,
            (salt, saltFirst, blocks, off, blockSize, count, out, outOff, stride) ->
                failures[0] |=
                    hashRun(
                        code, salt, saltFirst, blocks, off, blockSize, count, out, outOff, stride));
    byte[] fromDirect =
        selfTestRuns(
            algorithm,
            (salt, saltFirst, blocks, off, blockSize, count, out, outOff, stride) -> {
              ByteBuffer direct = ByteBuffer.allocateDirect(blocks.length).put(0, blocks);
              failures[0] |=
                  hashRunDirect(
                      code, salt, saltFirst, direct, off, blockSize, count, out, outOff, stride);
            });
    byte[] digest = new byte[algorithm.digestSize()];
    failures[0] |=
        hashRun(code, new byte[0], true, fromHeap, 0, fromHeap.length, 1, digest, 0, digest.length);
    return failures[0] == OK
        && Arrays.equals(fromHeap, fromDirect)
        && HexFormat.of().formatHex(digest).equals(expected);
  }

  private static native String libcryptoVersion();

  private static native boolean sha256TwoStreams0();

  private static native long sha256PairsHashed0();

  private static native int hashRunDirect(
      int algorithm,
      byte[] salt,
      boolean saltFirst,
      ByteBuffer direct,
      int off,
      int blockSize,
      int count,
      byte[] out,
      int outOff,
      int stride);

  private static native int hashTwo0(
      byte[] salt,
      boolean saltFirst,
      byte[] a,
      int aOff,
      byte[] b,
      int bOff,
      int len,
      byte[] out,
      int outA,
      int outB);

  private static native int hashRun(
      int algorithm,
      byte[] salt,
      boolean saltFirst,
      byte[] blocks,
      int off,
      int blockSize,
      int count,
      byte[] out,
      int outOff,
      int stride);
}
