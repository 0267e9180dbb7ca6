package org.jverity.fec;

import java.util.Arrays;

/**
 * The same encoder as {@link ReedSolomon.Interleaved}, many codewords side by side, computed as the
 * linear map it is: the parity of a message is the XOR over its positions i of m_i·c_i, where c_i
 * is the parity of the unit message at position i. One table per position, {@code T_i[x]} = x·c_i
 * with all {@code roots} bytes packed into longs (parity byte j in byte j mod 8 of word j / 8), so
 * a message byte costs ⌈roots / 8⌉ lookups and XORs, and — unlike the shift register, where each
 * lookup waits for the previous one — no lookup depends on another, so the CPU overlaps them.
 *
 * <p>Measured on this project's 2-core Xeon (JDK 25 C2), message bytes per second and core at 2
 * roots: these tables ~1.9 GB/s; the shift register with packed registers ~1.0 GB/s; the byte-wise
 * shift register ({@link ReedSolomon.Interleaved}) ~0.5 GB/s; a bit-sliced multiply (8 codewords
 * per long, x·c as XORs of masked constants) ~0.6 GB/s, which C2 does not vectorise. At 24 roots
 * the byte-wise register falls to ~25 MB/s, the packed forms stay within 3x of 2 roots.
 *
 * <p>Not thread-safe; the {@link Tables} are immutable and shared. Memory: {@code 8 × width ×
 * ⌈roots / 8⌉} bytes of accumulators.
 */
final class PackedInterleaved {
  /** The most longs a codeword's parity takes: 24 roots, three. */
  static final int MAX_WORDS = Math.ceilDiv(ReedSolomon.MAX_ROOTS, Long.BYTES);

  /**
   * The per-position tables of one code: {@code k × ⌈roots / 8⌉ × 256} longs (at most 1.4 MiB, for
   * 24 roots). Immutable; thread-safe.
   */
  static final class Tables {
    final int roots;
    final int messageLength; // k
    final int words; // longs per codeword: ⌈roots / 8⌉
    final long[][][] t; // t[x][i][v]: word x of v·c_i
    // packed[i][x·256 + v] = t[x][i][v]: position i's words in one array, as the native loop takes
    // them; null when it is not used.
    final long[][] packed;

    Tables(ReedSolomon rs) {
      this(rs, true);
    }

    /** {@code nativeLoop}: feed through the native loop when it is available. */
    Tables(ReedSolomon rs, boolean nativeLoop) {
      this.roots = rs.roots();
      this.messageLength = rs.messageLength();
      this.words = Math.ceilDiv(roots, Long.BYTES);
      this.t = new long[words][messageLength][GaloisField.SIZE];
      byte[] unit = new byte[messageLength];
      byte[] c = new byte[roots];
      for (int i = 0; i < messageLength; i++) {
        unit[i] = 1;
        rs.encode(unit, 0, c, 0);
        unit[i] = 0;
        for (int j = 0; j < roots; j++) {
          byte[] products = GaloisField.multiplicationTable(c[j] & 0xff);
          long[] row = t[j / Long.BYTES][i];
          int shift = Byte.SIZE * (j % Long.BYTES);
          for (int v = 0; v < GaloisField.SIZE; v++) {
            row[v] |= (products[v] & 0xffL) << shift;
          }
        }
      }
      this.packed = nativeLoop && NativeFec.available() ? pack() : null;
    }

    private long[][] pack() {
      long[][] p = new long[messageLength][words * GaloisField.SIZE];
      for (int i = 0; i < messageLength; i++) {
        for (int x = 0; x < words; x++) {
          System.arraycopy(t[x][i], 0, p[i], x * GaloisField.SIZE, GaloisField.SIZE);
        }
      }
      return p;
    }
  }

  private final Tables tables;
  private final int width; // codewords encoded together
  private final int words;
  private final long[] acc; // acc[w·words + x]: word x of codeword w's parity so far
  private int fed; // message bytes fed since reset()

  PackedInterleaved(Tables tables, int width) {
    if (width < 1) {
      throw new IllegalArgumentException("width: " + width + " (expected: at least 1)");
    }
    this.tables = tables;
    this.width = width;
    this.words = tables.words;
    this.acc = new long[Math.multiplyExact(width, words)];
  }

  int width() {
    return width;
  }

  /** Starts new codewords. */
  void reset() {
    Arrays.fill(acc, 0L);
    fed = 0;
  }

  /**
   * Feeds the next message byte of every codeword: byte {@code w} of {@code bytes[off...]} to
   * codeword {@code w}.
   */
  void feed(byte[] bytes, int off) {
    int i = advance(1);
    if (tables.packed != null) {
      NativeFec.feed(acc, words, width, bytes, off, 0, tables.packed[i], null);
      return;
    }
    long[] a = acc;
    switch (words) {
      case 1 -> {
        long[] t0 = tables.t[0][i];
        for (int w = 0; w < width; w++) {
          a[w] ^= t0[bytes[off + w] & 0xff];
        }
      }
      case 2 -> {
        long[] t0 = tables.t[0][i];
        long[] t1 = tables.t[1][i];
        for (int w = 0, p = 0; w < width; w++, p += 2) {
          int v = bytes[off + w] & 0xff;
          a[p] ^= t0[v];
          a[p + 1] ^= t1[v];
        }
      }
      default -> {
        long[] t0 = tables.t[0][i];
        long[] t1 = tables.t[1][i];
        long[] t2 = tables.t[2][i];
        for (int w = 0, p = 0; w < width; w++, p += 3) {
          int v = bytes[off + w] & 0xff;
          a[p] ^= t0[v];
          a[p + 1] ^= t1[v];
          a[p + 2] ^= t2[v];
        }
      }
    }
  }

  /**
   * Feeds two message bytes of every codeword: byte {@code w} of {@code bytes[off...]}, then byte
   * {@code w} of {@code bytes[off2...]}, to codeword {@code w}: two {@link #feed} calls in one pass
   * over the accumulators.
   */
  void feed2(byte[] bytes, int off, int off2) {
    int i = advance(2);
    if (tables.packed != null) {
      NativeFec.feed(acc, words, width, bytes, off, off2, tables.packed[i], tables.packed[i + 1]);
      return;
    }
    long[] a = acc;
    switch (words) {
      case 1 -> {
        long[] t0 = tables.t[0][i];
        long[] u0 = tables.t[0][i + 1];
        for (int w = 0; w < width; w++) {
          a[w] ^= t0[bytes[off + w] & 0xff] ^ u0[bytes[off2 + w] & 0xff];
        }
      }
      case 2 -> {
        long[] t0 = tables.t[0][i];
        long[] t1 = tables.t[1][i];
        long[] u0 = tables.t[0][i + 1];
        long[] u1 = tables.t[1][i + 1];
        for (int w = 0, p = 0; w < width; w++, p += 2) {
          int v = bytes[off + w] & 0xff;
          int u = bytes[off2 + w] & 0xff;
          a[p] ^= t0[v] ^ u0[u];
          a[p + 1] ^= t1[v] ^ u1[u];
        }
      }
      default -> {
        long[] t0 = tables.t[0][i];
        long[] t1 = tables.t[1][i];
        long[] t2 = tables.t[2][i];
        long[] u0 = tables.t[0][i + 1];
        long[] u1 = tables.t[1][i + 1];
        long[] u2 = tables.t[2][i + 1];
        for (int w = 0, p = 0; w < width; w++, p += 3) {
          int v = bytes[off + w] & 0xff;
          int u = bytes[off2 + w] & 0xff;
          a[p] ^= t0[v] ^ u0[u];
          a[p + 1] ^= t1[v] ^ u1[u];
          a[p + 2] ^= t2[v] ^ u2[u];
        }
      }
    }
  }

  /** Counts {@code n} feeds and returns the message position of the first. */
  private int advance(int n) {
    if (fed + n > tables.messageLength) {
      throw new IllegalStateException(
          "a codeword takes " + tables.messageLength + " message bytes");
    }
    int i = fed;
    fed += n;
    return i;
  }

  /**
   * Writes the parity of every codeword, {@code roots} bytes each, codeword after codeword (the
   * layout of a FEC device). Call after {@code k} feeds.
   */
  void parity(byte[] out, int off) {
    if (fed != tables.messageLength) {
      throw new IllegalStateException(
          "parity after " + fed + " of " + tables.messageLength + " message bytes");
    }
    int roots = tables.roots;
    for (int w = 0; w < width; w++) {
      int base = w * words;
      int to = off + w * roots;
      for (int j = 0; j < roots; j++) {
        out[to + j] = (byte) (acc[base + j / Long.BYTES] >>> (Byte.SIZE * (j % Long.BYTES)));
      }
    }
  }
}
