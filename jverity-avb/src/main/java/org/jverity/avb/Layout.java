package org.jverity.avb;

import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;

/** The arithmetic and text rules every AVB structure shares: 64- and 8-byte rounding, UTF-8. */
final class Layout {
  private Layout() {}

  /** avbtool's round_to_multiple(n, 64): auth and aux blocks. */
  static int round64(int n) {
    return (n + 63) & ~63;
  }

  /** avbtool's round_to_multiple(n, 8): a descriptor's num_bytes_following. */
  static int round8(int n) {
    return (n + 7) & ~7;
  }

  /** A u32 field, unsigned, as a long. */
  static long u32(ByteBuffer b, int at) {
    return Integer.toUnsignedLong(b.getInt(at));
  }

  /** UTF-8 that must be valid: avbtool refuses names it cannot decode. */
  static String utf8(byte[] b, int off, int len, String what) throws AvbFormatException {
    try {
      return StandardCharsets.UTF_8
          .newDecoder()
          .onMalformedInput(CodingErrorAction.REPORT)
          .onUnmappableCharacter(CodingErrorAction.REPORT)
          .decode(ByteBuffer.wrap(b, off, len))
          .toString();
    } catch (CharacterCodingException e) {
      throw new AvbFormatException(what + ": not UTF-8 (expected: valid UTF-8 text)");
    }
  }

  static byte[] utf8(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }
}
