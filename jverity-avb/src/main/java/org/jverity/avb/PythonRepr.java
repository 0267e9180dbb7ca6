package org.jverity.avb;

/**
 * Python 3's {@code repr} of bytes and of an ASCII str, which avbtool's info_image prints property
 * values and unknown descriptors with.
 */
final class PythonRepr {
  private PythonRepr() {}

  /**
   * A property value as avbtool prints it: {@code repr(value)} with the {@code b} dropped when the
   * repr starts {@code b'} (a value with a single quote and no double quote keeps {@code b"}).
   */
  static String propertyValue(byte[] value) {
    String r = ofBytes(value);
    return r.startsWith("b'") ? r.substring(1) : r;
  }

  /** {@code repr(bytes)}: {@code b'...'}, or {@code b"..."} when it holds ' and no ". */
  static String ofBytes(byte[] b) {
    boolean single = false, dbl = false;
    for (byte x : b) {
      single |= x == '\'';
      dbl |= x == '"';
    }
    char quote = single && !dbl ? '"' : '\'';
    StringBuilder s = new StringBuilder(b.length + 3).append('b').append(quote);
    for (byte x : b) {
      int c = x & 0xff;
      if (c == quote || c == '\\') {
        s.append('\\').append((char) c);
      } else if (c == '\t') {
        s.append("\\t");
      } else if (c == '\n') {
        s.append("\\n");
      } else if (c == '\r') {
        s.append("\\r");
      } else if (c < 0x20 || c >= 0x7f) {
        s.append(String.format("\\x%02x", c));
      } else {
        s.append((char) c);
      }
    }
    return s.append(quote).toString();
  }

  /** {@code repr(str)} of printable ASCII: quoted as Python chooses, backslashes doubled. */
  static String ofStr(String str) {
    boolean single = str.indexOf('\'') >= 0, dbl = str.indexOf('"') >= 0;
    char quote = single && !dbl ? '"' : '\'';
    StringBuilder s = new StringBuilder(str.length() + 2).append(quote);
    for (char c : str.toCharArray()) {
      if (c == quote || c == '\\') {
        s.append('\\');
      }
      s.append(c);
    }
    return s.append(quote).toString();
  }
}
