package org.jverity.avb;

import java.nio.ByteBuffer;

/**
 * One descriptor's bytes while it is decoded or encoded: the tag/length header, a fixed part, and
 * variable fields that must fit in {@code num_bytes_following} (checked before anything is copied,
 * so a length read from the input never sizes an allocation larger than the input).
 */
final class DescriptorFrame {
  private DescriptorFrame() {}

  /**
   * A buffer over {@code b[off, off + 16 + nbf)}, after checking that the fixed part ({@code
   * fixedSize} bytes including the header) fits.
   */
  static ByteBuffer open(String what, byte[] b, int off, int nbf, int fixedSize)
      throws AvbFormatException {
    if (Descriptor.HEADER_SIZE + (long) nbf < fixedSize) {
      throw new AvbFormatException(
          what
              + " descriptor: num_bytes_following "
              + nbf
              + " (expected: at least "
              + (fixedSize - Descriptor.HEADER_SIZE)
              + ")");
    }
    return ByteBuffer.wrap(b, off, Descriptor.HEADER_SIZE + nbf).slice();
  }

  /** Checks that variable fields of these lengths fit after the fixed part. */
  static void fits(String what, int nbf, int fixedSize, long... lengths) throws AvbFormatException {
    long total = fixedSize - Descriptor.HEADER_SIZE;
    for (long l : lengths) {
      total += l; // each length is a u32: no overflow for a handful of them
    }
    if (total > nbf) {
      throw new AvbFormatException(
          what
              + " descriptor: fields need "
              + total
              + " bytes (expected: at most num_bytes_following "
              + nbf
              + ")");
    }
  }

  /** {@code len} bytes at {@code at} of the descriptor. */
  static byte[] bytes(ByteBuffer d, int at, int len) {
    byte[] out = new byte[len];
    d.get(at, out);
    return out;
  }

  /**
   * A buffer for a descriptor of {@code tag} whose payload (fixed part after the header, then the
   * variable fields) is {@code payload} bytes: the header is written, the rest is zero.
   */
  static ByteBuffer create(long tag, int payload) {
    int nbf = Layout.round8(payload);
    ByteBuffer b = ByteBuffer.allocate(Descriptor.HEADER_SIZE + nbf);
    b.putLong(tag).putLong(nbf);
    return b;
  }

  /** A NUL-padded fixed-width ASCII field (hash_algorithm, 32 bytes). */
  static String ascii(ByteBuffer d, int at, int width) {
    StringBuilder s = new StringBuilder();
    for (int i = 0; i < width; i++) {
      int c = d.get(at + i) & 0xff;
      if (c == 0) {
        break;
      }
      s.append((char) c);
    }
    return s.toString();
  }

  /** Checks a hash_algorithm name fits its 32-byte field as ASCII. */
  static String checkAlgorithm(String what, String name) {
    if (name == null || name.length() > 32 || !name.chars().allMatch(c -> c > 0 && c < 128)) {
      throw new IllegalArgumentException(
          what + " hash algorithm: " + name + " (expected: ASCII, at most 32 bytes)");
    }
    return name;
  }

  static <T> T nonNull(String what, T value) {
    if (value == null) {
      throw new IllegalArgumentException(what + ": null (expected: a value)");
    }
    return value;
  }
}
