package org.jverity.cli;

/** Decimal whole numbers on the command line; anything else is a {@link BadValue} of kind usage. */
final class WholeNumber {
  private WholeNumber() {}

  static long parseLong(String text) {
    try {
      return Long.parseLong(text);
    } catch (NumberFormatException e) {
      throw BadValue.usage("a whole number");
    }
  }

  static int parseInt(String text) {
    try {
      return Integer.parseInt(text);
    } catch (NumberFormatException e) {
      throw BadValue.usage("a whole number up to " + Integer.MAX_VALUE);
    }
  }
}
