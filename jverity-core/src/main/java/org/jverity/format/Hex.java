package org.jverity.format;

import java.util.HexFormat;

/** Lower-case hex, as veritysetup prints and parses digests and salts. Stateless, thread-safe. */
public final class Hex {
  private static final HexFormat HEX = HexFormat.of();

  private Hex() {}

  public static String format(byte[] bytes) {
    return HEX.formatHex(bytes);
  }

  /**
   * Parses an even-length hex string (either case).
   *
   * @param what names the value in the error message, e.g. "salt" or "root hash"
   * @throws VerityParameterException if the string is not hex
   */
  public static byte[] parse(String what, String hex) {
    if (hex.length() % 2 != 0) {
      throw new VerityParameterException(
          what + ": odd number of hex digits (" + hex.length() + ")");
    }
    try {
      return HEX.parseHex(hex);
    } catch (IllegalArgumentException e) {
      throw new VerityParameterException(what + ": not a hex string: " + abbreviate(hex));
    }
  }

  private static String abbreviate(String s) {
    return s.length() <= 80 ? s : s.substring(0, 77) + "...";
  }
}
