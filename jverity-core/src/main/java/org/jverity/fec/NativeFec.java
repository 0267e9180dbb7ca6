package org.jverity.fec;

import java.util.Arrays;
import java.util.Optional;
import java.util.SplittableRandom;
import org.jverity.internal.NativeLibrary;

/**
 * The native Reed-Solomon accumulation ({@link NativeLibrary}, {@code src/main/c/fec_feed.c}):
 * {@link PackedInterleaved}'s feed loops in one JNI call each, so that {@code format --fec-device}
 * encodes at full speed from its first codeword instead of waiting for the JIT to compile the Java
 * loop. Used only once loaded and self-tested (every accumulator width, one and two positions per
 * call) against the definition; otherwise the Java loops run, with identical parity.
 */
final class NativeFec {
  private static final int OK = 0;

  private static final class Tested {
    static final boolean PASSED = NativeLibrary.loaded() && selfTest();
  }

  private static volatile boolean asked;

  private NativeFec() {}

  /** Whether the native loop is loaded and passed its self-test (tested on first call). */
  static boolean available() {
    asked = true;
    return Tested.PASSED;
  }

  /**
   * {@code acc[w·words + x] ^= t[x·256 + bytes[off + w]]}, and {@code ^= u[x·256 + bytes[off2 +
   * w]]} when {@code u} is not null, for every codeword {@code w < width}.
   */
  static void feed(
      long[] acc, int words, int width, byte[] bytes, int off, int off2, long[] t, long[] u) {
    int r = feedRun(acc, words, width, bytes, off, off2, t, u);
    if (r != OK) {
      throw new IllegalStateException("native FEC loop failed: " + r);
    }
  }

  /** One line on which path the parity took, for {@code --debug}; empty when none was computed. */
  static Optional<String> note() {
    if (!asked) {
      return Optional.empty();
    }
    return Optional.of(
        Tested.PASSED
            ? "FEC parity: native loop"
            : "FEC parity: in Java ("
                + (NativeLibrary.loaded()
                    ? "native loop failed its self-test"
                    : "native loop not loaded: " + NativeLibrary.problem())
                + ")");
  }

  private static boolean selfTest() {
    SplittableRandom random = new SplittableRandom(255);
    int width = 37;
    for (int words = 1; words <= PackedInterleaved.MAX_WORDS; words++) {
      long[] t = random.longs(words * 256L).toArray();
      long[] u = random.longs(words * 256L).toArray();
      byte[] bytes = new byte[3 + 2 * width];
      random.nextBytes(bytes);
      for (boolean two : new boolean[] {false, true}) {
        long[] acc = random.longs((long) width * words).toArray();
        long[] expected = acc.clone();
        for (int w = 0; w < width; w++) {
          for (int x = 0; x < words; x++) {
            expected[w * words + x] ^=
                t[x * 256 + (bytes[3 + w] & 0xff)]
                    ^ (two ? u[x * 256 + (bytes[3 + width + w] & 0xff)] : 0);
          }
        }
        if (feedRun(acc, words, width, bytes, 3, 3 + width, t, two ? u : null) != OK
            || !Arrays.equals(acc, expected)) {
          return false;
        }
      }
    }
    return true;
  }

  private static native int feedRun(
      long[] acc, int words, int width, byte[] bytes, int off, int off2, long[] t, long[] u);
}
