package org.jverity.remote.s3;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;

/**
 * The one percent-encoding S3 paths and SigV4 use: every byte of the UTF-8 form but {@code
 * A-Za-z0-9-._~} as {@code %XX} (upper-case hex), {@code /} included. The wire path and the
 * canonical path are encoded by this same rule, so what is sent is what is signed.
 */
final class S3Encoding {
  private static final HexFormat UPPER_HEX = HexFormat.of().withUpperCase();

  private S3Encoding() {}

  /** One path segment, query name or value, encoded. */
  static String encode(String text) {
    StringBuilder s = new StringBuilder();
    for (byte b : text.getBytes(StandardCharsets.UTF_8)) {
      int c = b & 0xff;
      if (unreserved(c)) {
        s.append((char) c);
      } else {
        s.append('%').append(UPPER_HEX.toHexDigits((byte) c));
      }
    }
    return s.toString();
  }

  /** A key's path: each {@code /}-separated segment encoded, the slashes kept. */
  static String encodePath(String key) {
    List<String> segments = new ArrayList<>();
    for (String segment : key.split("/", -1)) {
      segments.add(encode(segment));
    }
    return String.join("/", segments);
  }

  /**
   * Percent-decoding of a raw URI component ({@code +} stays a plus: S3 encodes a space as {@code
   * %20}); a {@code %} not followed by two hex digits is kept as it is.
   */
  static String decode(String raw) {
    if (raw.indexOf('%') < 0) {
      return raw;
    }
    ByteArrayOutputStream out = new ByteArrayOutputStream(raw.length());
    int i = 0;
    while (i < raw.length()) {
      int pct = raw.indexOf('%', i);
      int end = pct < 0 ? raw.length() : pct;
      out.writeBytes(raw.substring(i, end).getBytes(StandardCharsets.UTF_8));
      if (pct < 0) {
        break;
      }
      if (pct + 2 < raw.length() && hex(raw.charAt(pct + 1)) && hex(raw.charAt(pct + 2))) {
        out.write(HexFormat.fromHexDigits(raw, pct + 1, pct + 3));
        i = pct + 3;
      } else {
        out.write('%');
        i = pct + 1;
      }
    }
    return out.toString(StandardCharsets.UTF_8);
  }

  private static boolean hex(char c) {
    return Character.digit(c, 16) >= 0;
  }

  private static boolean unreserved(int c) {
    return (c >= 'A' && c <= 'Z')
        || (c >= 'a' && c <= 'z')
        || (c >= '0' && c <= '9')
        || c == '-'
        || c == '.'
        || c == '_'
        || c == '~';
  }
}
