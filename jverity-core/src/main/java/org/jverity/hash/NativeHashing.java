package org.jverity.hash;

import java.nio.ByteBuffer;
import java.security.MessageDigest;
import java.util.Arrays;
import java.util.Optional;
import java.util.SplittableRandom;
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
 * array and a direct buffer, against the JDK's digest.
 */
final class NativeHashing {
  /** Longest salt the library takes (its MAX_SALT): longer ones are hashed in Java. */
  static final int MAX_SALT = 1024;

  private static final int OK = 0;

  /** libcrypto's version line, read once the library is loaded. */
  private static final class Libcrypto {
    static final String VERSION = libcryptoVersion();
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
   * Short runs through both salt placements and salt lengths around the hash's input block, with
   * digests a few bytes apart, against the JDK's digest of the same bytes.
   */
  private static boolean selfTest(HashAlgorithm algorithm, int code) {
    MessageDigest jdk = algorithm.newJavaDigest();
    int size = algorithm.digestSize();
    SplittableRandom random = new SplittableRandom(code);
    int blockSize = 97;
    int count = 3;
    int stride = size + 5;
    byte[] blocks = new byte[1 + blockSize * count];
    random.nextBytes(blocks);
    for (int saltLength : new int[] {0, 7, algorithm.inputBlockSize(), 300}) {
      byte[] salt = new byte[saltLength];
      random.nextBytes(salt);
      for (boolean saltFirst : new boolean[] {true, false}) {
        byte[] out = new byte[stride * count];
        byte[] fromDirect = new byte[out.length];
        ByteBuffer direct = ByteBuffer.allocateDirect(blocks.length).put(0, blocks);
        if (hashRun(code, salt, saltFirst, blocks, 1, blockSize, count, out, 0, stride) != OK
            || hashRunDirect(
                    code, salt, saltFirst, direct, 1, blockSize, count, fromDirect, 0, stride)
                != OK
            || !Arrays.equals(out, fromDirect)) {
          return false;
        }
        for (int i = 0; i < count; i++) {
          byte[] block = Arrays.copyOfRange(blocks, 1 + i * blockSize, 1 + (i + 1) * blockSize);
          jdk.update(saltFirst ? salt : block);
          byte[] expected = jdk.digest(saltFirst ? block : salt);
          if (!Arrays.equals(out, i * stride, i * stride + size, expected, 0, size)
              || !isZero(out, i * stride + size, (i + 1) * stride)) {
            return false;
          }
        }
      }
    }
    return true;
  }

  private static boolean isZero(byte[] a, int from, int to) {
    for (int i = from; i < to; i++) {
      if (a[i] != 0) {
        return false;
      }
    }
    return true;
  }

  private static native String libcryptoVersion();

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
