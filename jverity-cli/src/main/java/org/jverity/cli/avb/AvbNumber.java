package org.jverity.cli.avb;

import org.jverity.cli.syntax.BadValue;

/**
 * avbtool's {@code parse_number} ({@code int(s, 0)}): decimal, or {@code 0x}, {@code 0o}, {@code
 * 0b} prefixed; underscores between digits. Negative numbers are refused (no AVB field is signed).
 */
final class AvbNumber {
  private AvbNumber() {}

  static long parseLong(String text) {
    String s = text.strip().replace("_", "");
    int radix = 10;
    if (s.length() > 2 && s.charAt(0) == '0') {
      switch (Character.toLowerCase(s.charAt(1))) {
        case 'x' -> radix = 16;
        case 'o' -> radix = 8;
        case 'b' -> radix = 2;
        default -> {}
      }
    }
    if (radix != 10) {
      s = s.substring(2);
    } else if (s.length() > 1 && s.charAt(0) == '0' && !s.chars().allMatch(c -> c == '0')) {
      throw new BadValue("a whole number (0x, 0o or 0b for another base)"); // as int(s, 0)
    }
    if (text.contains("__") || text.startsWith("_") || text.endsWith("_")) {
      throw new BadValue("a whole number");
    }
    try {
      long v = Long.parseLong(s, radix);
      if (v < 0) {
        throw new BadValue("a whole number, 0 or more");
      }
      return v;
    } catch (NumberFormatException e) {
      throw new BadValue("a whole number");
    }
  }

  /** As {@link #parseLong}, a 32-bit field (flags, rollback index locations): up to 2^32 − 1. */
  static int parseUnsignedInt(String text) {
    long v = parseLong(text);
    if (v > 0xffff_ffffL) {
      throw new BadValue("a whole number up to " + 0xffff_ffffL);
    }
    return (int) v;
  }

  /** As {@link #parseLong}, a count or a size that fits an int. */
  static int parseInt(String text) {
    long v = parseLong(text);
    if (v > Integer.MAX_VALUE) {
      throw new BadValue("a whole number up to " + Integer.MAX_VALUE);
    }
    return (int) v;
  }
}
