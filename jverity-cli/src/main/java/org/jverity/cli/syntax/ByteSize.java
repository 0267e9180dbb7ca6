package org.jverity.cli.syntax;

import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A byte count on the command line: plain bytes, or a whole number with K, M, G, T, KiB, MiB, GiB
 * or TiB (all powers of 1024; k, m, g, t too), so {@code --length 1M} is 1048576 bytes. Never
 * negative. Stateless.
 */
public final class ByteSize {
  public static final String EXPECTED = "bytes, or a number with K, M, G, T, KiB, MiB, GiB or TiB";

  private static final Pattern SIZE = Pattern.compile("([0-9]+)([KMGTkmgt]|[KMGT]iB)?");

  /** The number of bytes {@code text} names; a {@link BadValue} when it names none. */
  public static long parse(String text) {
    Matcher m = SIZE.matcher(text);
    if (!m.matches()) {
      throw new BadValue(EXPECTED);
    }
    int shift =
        m.group(2) == null
            ? 0
            : switch (Character.toUpperCase(m.group(2).charAt(0))) {
              case 'K' -> 10;
              case 'M' -> 20;
              case 'G' -> 30;
              default -> 40; // T
            };
    try {
      return Math.multiplyExact(Long.parseLong(m.group(1)), 1L << shift);
    } catch (NumberFormatException | ArithmeticException e) { // past Long.MAX_VALUE
      throw new BadValue("at most " + Long.MAX_VALUE + " bytes");
    }
  }
}
