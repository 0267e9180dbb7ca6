package org.jverity.testing;

import java.util.SplittableRandom;

/** Deterministic test images. */
public final class Images {
  private Images() {}

  /** {@code size} pseudo-random bytes from {@code seed}. */
  public static byte[] random(long seed, int size) {
    byte[] b = new byte[size];
    SplittableRandom r = new SplittableRandom(seed);
    for (int i = 0; i < size; i++) {
      b[i] = (byte) r.nextInt(256);
    }
    return b;
  }

  public static byte[] repeat(byte value, int count) {
    byte[] b = new byte[count];
    java.util.Arrays.fill(b, value);
    return b;
  }
}
