package org.jverity.fec;

import java.util.Arrays;

/**
 * The Reed-Solomon code of dm-verity FEC: RS(255, 255 − roots) over {@link GaloisField}, first
 * consecutive root α^0 (fcr 0), primitive element step 1, systematic, no shortening: the code of
 * cryptsetup's {@code init_rs_char(8, 0x11d, 0, 1, roots, 0)} and the kernel's {@code
 * init_rs_gfp(8, 0x11d, 0, 1, roots)}. A codeword is 255 bytes: the message (byte 0 the highest
 * coefficient), then {@code roots} parity bytes, the remainder of msg(x)·x^roots mod g(x) with g(x)
 * = ∏ (x − α^i), i = 0..roots−1. Immutable; thread-safe.
 */
public final class ReedSolomon {
  /** Bytes in a codeword. */
  public static final int N = GaloisField.ORDER;

  /** veritysetup's range of parity bytes: 2 to 24 (k from 231 to 253). */
  public static final int MIN_ROOTS = 2;

  public static final int MAX_ROOTS = 24;

  /**
   * veritysetup's default parity bytes ({@code --fec-roots}): the least overhead, 2 of 255 bytes.
   */
  public static final int DEFAULT_ROOTS = 2;

  private final int roots;
  private final int[] generator; // coefficients of g(x), generator[i] of x^i; generator[roots] = 1
  private final byte[][] feedbackTables; // feedbackTables[j]: c·x for c = generator[roots − 1 − j]

  /** The range as messages and help texts say it. */
  public static final String ROOTS_RANGE = MIN_ROOTS + " to " + MAX_ROOTS;

  /** Whether {@code roots} parity bytes per codeword are in veritysetup's range. */
  public static boolean validRoots(long roots) {
    return roots >= MIN_ROOTS && roots <= MAX_ROOTS;
  }

  /**
   * The rule said once: returns {@code roots} when it is in the range, else throws what {@code
   * refusal} makes of "WHAT: ROOTS (expected: 2 to 24)".
   */
  public static <E extends Exception> int checkRoots(
      String what, int roots, java.util.function.Function<String, E> refusal) throws E {
    if (!validRoots(roots)) {
      throw refusal.apply(what + ": " + roots + " (expected: " + ROOTS_RANGE + ")");
    }
    return roots;
  }

  public ReedSolomon(int roots) {
    this.roots = checkRoots("RS roots", roots, IllegalArgumentException::new);
    int[] g = new int[roots + 1];
    g[0] = 1;
    for (int i = 0; i < roots; i++) { // g(x) ← g(x)·(x + α^i)
      int root = GaloisField.exp(i);
      for (int j = i + 1; j > 0; j--) {
        g[j] = g[j - 1] ^ GaloisField.mul(g[j], root);
      }
      g[0] = GaloisField.mul(g[0], root);
    }
    this.generator = g;
    this.feedbackTables = new byte[roots][];
    for (int j = 0; j < roots; j++) {
      feedbackTables[j] = GaloisField.multiplicationTable(g[roots - 1 - j]);
    }
  }

  /** Parity bytes per codeword. */
  public int roots() {
    return roots;
  }

  /** Message bytes per codeword: 255 − roots. */
  public int messageLength() {
    return N - roots;
  }

  /** Coefficient of x^i in the generator polynomial (i = 0..roots; the last is 1). */
  public int generator(int i) {
    return generator[i];
  }

  /**
   * The parity of one message: {@code message[off, off + k)} in, {@code parity[pOff, pOff + roots)}
   * out. The reference shape of the code (libfec's {@code encode_rs_char}); {@link Interleaved}
   * computes the same for many codewords at once.
   */
  public void encode(byte[] message, int off, byte[] parity, int pOff) {
    Arrays.fill(parity, pOff, pOff + roots, (byte) 0);
    for (int i = 0; i < messageLength(); i++) {
      int feedback = (message[off + i] ^ parity[pOff]) & 0xff;
      for (int j = 0; j < roots - 1; j++) {
        parity[pOff + j] = (byte) (parity[pOff + j + 1] ^ feedbackTables[j][feedback]);
      }
      parity[pOff + roots - 1] = feedbackTables[roots - 1][feedback];
    }
  }

  /**
   * Encodes many codewords side by side, one message byte of each at a time: the inner loop runs
   * over codewords, so each step is a table lookup and an XOR per codeword with no dependency
   * between them. Not thread-safe: one per thread. Memory: {@code roots × width} bytes.
   */
  public final class Interleaved {
    private final int width; // codewords encoded together
    private final byte[][] state; // state[j][w]: parity register j of codeword w
    private final byte[] feedback;
    private final byte[] zeros;
    private int fed; // message bytes fed so far

    public Interleaved(int width) {
      this.width = width;
      this.state = new byte[roots][width];
      this.feedback = new byte[width];
      this.zeros = new byte[width];
    }

    /** Starts new codewords. */
    public void reset() {
      for (byte[] s : state) {
        Arrays.fill(s, (byte) 0);
      }
      fed = 0;
    }

    /**
     * Feeds the next message byte of every codeword: byte {@code w} of {@code bytes[off...]} goes
     * to codeword {@code w}. Exactly {@link #messageLength()} calls make a codeword.
     */
    public void feed(byte[] bytes, int off) {
      if (fed == messageLength()) {
        throw new IllegalStateException("a codeword takes " + messageLength() + " message bytes");
      }
      fed++;
      byte[] first = state[0];
      for (int w = 0; w < width; w++) {
        feedback[w] = (byte) (bytes[off + w] ^ first[w]);
      }
      for (int j = 0; j < roots - 1; j++) {
        byte[] to = state[j];
        byte[] from = state[j + 1];
        byte[] table = feedbackTables[j];
        for (int w = 0; w < width; w++) {
          to[w] = (byte) (from[w] ^ table[feedback[w] & 0xff]);
        }
      }
      byte[] last = state[roots - 1];
      byte[] table = feedbackTables[roots - 1];
      for (int w = 0; w < width; w++) {
        last[w] = table[feedback[w] & 0xff];
      }
    }

    /** Feeds a zero message byte to every codeword (a block past the end of the message area). */
    public void feedZeros() {
      feed(zeros, 0);
    }

    /**
     * Writes the parity of every codeword, codeword by codeword ({@code roots} bytes each): the
     * layout of a FEC device. Call after {@link #messageLength()} feeds.
     */
    public void parity(byte[] out, int off) {
      if (fed != messageLength()) {
        throw new IllegalStateException(
            "parity after " + fed + " of " + messageLength() + " message bytes");
      }
      for (int w = 0; w < width; w++) {
        for (int j = 0; j < roots; j++) {
          out[off + w * roots + j] = state[j][w];
        }
      }
    }
  }
}
