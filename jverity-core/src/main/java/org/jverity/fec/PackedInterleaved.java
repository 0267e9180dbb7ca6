package org.jverity.fec;

import java.util.Arrays;

/**
 * The same encoder as {@link ReedSolomon.Interleaved}, many codewords side by side, with each
 * codeword's parity registers packed into longs (register j in byte j mod 8 of word j / 8, little
 * end first). One table lookup per feedback byte yields all eight products of a word, so a message
 * byte costs ⌈roots / 8⌉ lookups instead of {@code roots}: about the same speed at 2 roots, 8 times
 * faster at 8 and 24 roots (a bit-sliced variant, 8 codewords per long with the multiply done as
 * XORs of masked constants, measured slower at every roots count on this JIT). Not thread-safe.
 * Memory: {@code 8 × width × ⌈roots / 8⌉} bytes.
 */
final class PackedInterleaved {
  /** The most registers a codeword can have: 24 roots, three words. */
  private static final int MAX_WORDS = Math.ceilDiv(ReedSolomon.MAX_ROOTS, Long.BYTES);

  private final int roots;
  private final int messageLength; // k: feeds per codeword
  private final int width; // codewords encoded together
  private final int words; // longs per codeword: ⌈roots / 8⌉
  private final long[] g0; // g0[fb]: byte j = fb·generator[roots − 1 − j], j = 0..7
  private final long[] g1; // registers 8..15, or null
  private final long[] g2; // registers 16..23, or null
  private final long[] state; // state[w·words + x]: word x of codeword w's registers
  private int fed; // message bytes fed since reset()

  PackedInterleaved(ReedSolomon rs, int width) {
    if (width < 1) {
      throw new IllegalArgumentException("width: " + width + " (expected: at least 1)");
    }
    this.roots = rs.roots();
    this.messageLength = rs.messageLength();
    this.width = width;
    this.words = Math.ceilDiv(roots, Long.BYTES);
    long[][] g = new long[MAX_WORDS][];
    for (int x = 0; x < words; x++) {
      g[x] = new long[GaloisField.SIZE];
    }
    for (int j = 0; j < roots; j++) {
      byte[] products = GaloisField.multiplicationTable(rs.generator(roots - 1 - j));
      for (int fb = 0; fb < GaloisField.SIZE; fb++) {
        g[j / Long.BYTES][fb] |= (products[fb] & 0xffL) << (Byte.SIZE * (j % Long.BYTES));
      }
    }
    this.g0 = g[0];
    this.g1 = g[1];
    this.g2 = g[2];
    this.state = new long[Math.multiplyExact(width, words)];
  }

  int width() {
    return width;
  }

  /** Starts new codewords. */
  void reset() {
    Arrays.fill(state, 0L);
    fed = 0;
  }

  /** Feeds the next message byte of every codeword: byte {@code w} of {@code bytes[off...]} to codeword {@code w}. */
  void feed(byte[] bytes, int off) {
    if (fed == messageLength) {
      throw new IllegalStateException("a codeword takes " + messageLength + " message bytes");
    }
    fed++;
    long[] s = state;
    switch (words) {
      case 1 -> {
        long[] t0 = g0;
        for (int w = 0; w < width; w++) {
          long v = s[w];
          s[w] = (v >>> 8) ^ t0[(int) (v ^ bytes[off + w]) & 0xff];
        }
      }
      case 2 -> {
        long[] t0 = g0;
        long[] t1 = g1;
        for (int w = 0, i = 0; w < width; w++, i += 2) {
          long v0 = s[i];
          long v1 = s[i + 1];
          int fb = (int) (v0 ^ bytes[off + w]) & 0xff;
          s[i] = ((v0 >>> 8) | (v1 << 56)) ^ t0[fb];
          s[i + 1] = (v1 >>> 8) ^ t1[fb];
        }
      }
      default -> {
        long[] t0 = g0;
        long[] t1 = g1;
        long[] t2 = g2;
        for (int w = 0, i = 0; w < width; w++, i += 3) {
          long v0 = s[i];
          long v1 = s[i + 1];
          long v2 = s[i + 2];
          int fb = (int) (v0 ^ bytes[off + w]) & 0xff;
          s[i] = ((v0 >>> 8) | (v1 << 56)) ^ t0[fb];
          s[i + 1] = ((v1 >>> 8) | (v2 << 56)) ^ t1[fb];
          s[i + 2] = (v2 >>> 8) ^ t2[fb];
        }
      }
    }
  }

  /**
   * Feeds two message bytes of every codeword: byte {@code w} of {@code bytes[off...]}, then byte
   * {@code w} of {@code bytes[off2...]}, to codeword {@code w}. The same as two {@link #feed} calls
   * with half the register loads and stores (about a quarter faster at 2 roots).
   */
  void feed2(byte[] bytes, int off, int off2) {
    if (fed + 2 > messageLength) {
      throw new IllegalStateException("a codeword takes " + messageLength + " message bytes");
    }
    fed += 2;
    long[] s = state;
    switch (words) {
      case 1 -> {
        long[] t0 = g0;
        for (int w = 0; w < width; w++) {
          long v = s[w];
          v = (v >>> 8) ^ t0[(int) (v ^ bytes[off + w]) & 0xff];
          s[w] = (v >>> 8) ^ t0[(int) (v ^ bytes[off2 + w]) & 0xff];
        }
      }
      case 2 -> {
        long[] t0 = g0;
        long[] t1 = g1;
        for (int w = 0, i = 0; w < width; w++, i += 2) {
          long v0 = s[i];
          long v1 = s[i + 1];
          int fb = (int) (v0 ^ bytes[off + w]) & 0xff;
          v0 = ((v0 >>> 8) | (v1 << 56)) ^ t0[fb];
          v1 = (v1 >>> 8) ^ t1[fb];
          fb = (int) (v0 ^ bytes[off2 + w]) & 0xff;
          s[i] = ((v0 >>> 8) | (v1 << 56)) ^ t0[fb];
          s[i + 1] = (v1 >>> 8) ^ t1[fb];
        }
      }
      default -> {
        long[] t0 = g0;
        long[] t1 = g1;
        long[] t2 = g2;
        for (int w = 0, i = 0; w < width; w++, i += 3) {
          long v0 = s[i];
          long v1 = s[i + 1];
          long v2 = s[i + 2];
          int fb = (int) (v0 ^ bytes[off + w]) & 0xff;
          v0 = ((v0 >>> 8) | (v1 << 56)) ^ t0[fb];
          v1 = ((v1 >>> 8) | (v2 << 56)) ^ t1[fb];
          v2 = (v2 >>> 8) ^ t2[fb];
          fb = (int) (v0 ^ bytes[off2 + w]) & 0xff;
          s[i] = ((v0 >>> 8) | (v1 << 56)) ^ t0[fb];
          s[i + 1] = ((v1 >>> 8) | (v2 << 56)) ^ t1[fb];
          s[i + 2] = (v2 >>> 8) ^ t2[fb];
        }
      }
    }
  }

  /**
   * Writes the parity of every codeword, {@code roots} bytes each, codeword after codeword (the
   * layout of a FEC device). Call after {@code messageLength} feeds.
   */
  void parity(byte[] out, int off) {
    if (fed != messageLength) {
      throw new IllegalStateException("parity after " + fed + " of " + messageLength + " message bytes");
    }
    for (int w = 0; w < width; w++) {
      int base = w * words;
      int to = off + w * roots;
      for (int j = 0; j < roots; j++) {
        out[to + j] = (byte) (state[base + j / Long.BYTES] >>> (Byte.SIZE * (j % Long.BYTES)));
      }
    }
  }
}
