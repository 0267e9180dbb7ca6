package org.jverity.internal;

import java.util.concurrent.atomic.AtomicLongArray;

/**
 * A fixed-size bit set whose bits only go from 0 to 1; safe to set from many threads at once. Not
 * exported: a detail of the checker and the reader.
 */
public final class ConcurrentBitSet {
  private final AtomicLongArray words;
  private final long size; // bits

  public ConcurrentBitSet(long size) {
    long words = (size + 63) >>> 6;
    if (words > Integer.MAX_VALUE - 8) {
      throw new IllegalArgumentException("bit set too large: " + size + " bits");
    }
    this.words = new AtomicLongArray((int) words);
    this.size = size;
  }

  public long size() {
    return size;
  }

  public void set(long bit) {
    int w = (int) (bit >>> 6); // < words.length, checked by the constructor
    long mask = 1L << bit; // shifts use the low 6 bits
    long old = words.get(w);
    while ((old & mask) == 0) {
      long seen = words.compareAndExchange(w, old, old | mask);
      if (seen == old) {
        return;
      }
      old = seen;
    }
  }

  public boolean get(long bit) {
    return (words.get((int) (bit >>> 6)) & (1L << bit)) != 0;
  }

  /** Index of the first set bit at or after {@code from}, or -1. */
  public long nextSet(long from) {
    for (long w = from >>> 6; w < words.length(); w++) {
      long bits = words.get((int) w);
      if (w == from >>> 6) {
        bits &= -1L << from;
      }
      if (bits != 0) {
        long bit = (w << 6) + Long.numberOfTrailingZeros(bits);
        return bit < size ? bit : -1;
      }
    }
    return -1;
  }
}
