package org.jverity.image;

/**
 * Closing what was only read: a failure to close loses nothing, and must not hide the first error.
 */
final class Closing {
  private Closing() {}

  static void quietly(AutoCloseable c) {
    if (c == null) {
      return;
    }
    try {
      c.close();
    } catch (Exception ignored) {
      // read-only: nothing to lose
    }
  }
}
