package org.jverity.cli.syntax;

/** Decimal whole numbers on the command line; anything else is a {@link BadValue} of kind usage. */
public final class WholeNumber {
  private WholeNumber() {}

  public static long parseLong(String text) {
    try {
      return Long.parseLong(text);
    } catch (NumberFormatException e) {
      throw BadValue.usage("a whole number");
    }
  }

  public static int parseInt(String text) {
    try {
      return Integer.parseInt(text);
    } catch (NumberFormatException e) {
      throw BadValue.usage("a whole number up to " + Integer.MAX_VALUE);
    }
  }
}
