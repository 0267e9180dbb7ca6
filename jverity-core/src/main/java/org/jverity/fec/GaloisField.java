package org.jverity.fec;

/**
 * GF(2^8) with the field generator polynomial 0x11d (x^8 + x^4 + x^3 + x^2 + 1) and primitive
 * element α = x: the field of dm-verity's Reed-Solomon code (libfec's {@code init_rs_char(8, 0x11d,
 * ...)}, the kernel's {@code init_rs_gfp(8, 0x11d, ...)}). Elements are ints 0..255. Immutable
 * tables; thread-safe.
 */
public final class GaloisField {
  /** Elements of the field. */
  public static final int SIZE = 256;

  /** Nonzero elements: the order of α. */
  public static final int ORDER = 255;

  /** The field generator polynomial. */
  public static final int POLYNOMIAL = 0x11d;

  private static final int[] EXP =
      new int[2 * ORDER]; // EXP[i] = α^i, doubled so sums of logs need no modulo
  private static final int[] LOG = new int[SIZE]; // LOG[α^i] = i; LOG[0] unused

  /** MUL[a][b] = a·b: 64 KiB, so a multiply in an inner loop is one load. */
  private static final byte[][] MUL = new byte[SIZE][SIZE];

  static {
    int x = 1;
    for (int i = 0; i < ORDER; i++) {
      EXP[i] = x;
      EXP[i + ORDER] = x;
      LOG[x] = i;
      x <<= 1;
      if ((x & SIZE) != 0) {
        x ^= POLYNOMIAL;
      }
    }
    for (int a = 1; a < SIZE; a++) {
      for (int b = 1; b < SIZE; b++) {
        MUL[a][b] = (byte) EXP[LOG[a] + LOG[b]];
      }
    }
  }

  private GaloisField() {}

  /** a·b. */
  public static int mul(int a, int b) {
    return a == 0 || b == 0 ? 0 : EXP[LOG[a] + LOG[b]];
  }

  /** a / b, b ≠ 0. */
  public static int div(int a, int b) {
    if (b == 0) {
      throw new ArithmeticException("division by zero in GF(256)");
    }
    return a == 0 ? 0 : EXP[LOG[a] + ORDER - LOG[b]];
  }

  /** α^e for any e ≥ 0. */
  public static int exp(int e) {
    return EXP[e % ORDER];
  }

  /** log_α(a), a ≠ 0: 0..254. */
  public static int log(int a) {
    if (a == 0) {
      throw new ArithmeticException("log of zero in GF(256)");
    }
    return LOG[a];
  }

  /** 1 / a, a ≠ 0. */
  public static int inverse(int a) {
    return div(1, a);
  }

  /** The row of products c·x for every x: index it with an unsigned byte. Do not modify. */
  static byte[] multiplicationTable(int c) {
    return MUL[c];
  }
}
