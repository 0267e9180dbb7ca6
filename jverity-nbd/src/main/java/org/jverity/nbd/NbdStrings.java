package org.jverity.nbd;

import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;

/** UTF-8 strings as the protocol carries them: no terminator, at most 4096 bytes. */
final class NbdStrings {
  private NbdStrings() {}

  static int utf8Length(String s) {
    return s.getBytes(StandardCharsets.UTF_8).length;
  }

  static byte[] bytes(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }

  /** Decodes strictly: null for bytes that are not UTF-8 or hold a NUL. */
  static String decode(byte[] b, int off, int len) {
    try {
      String s =
          StandardCharsets.UTF_8
              .newDecoder()
              .onMalformedInput(CodingErrorAction.REPORT)
              .onUnmappableCharacter(CodingErrorAction.REPORT)
              .decode(ByteBuffer.wrap(b, off, len))
              .toString();
      return s.indexOf('\0') >= 0 ? null : s;
    } catch (CharacterCodingException e) {
      return null;
    }
  }
}
