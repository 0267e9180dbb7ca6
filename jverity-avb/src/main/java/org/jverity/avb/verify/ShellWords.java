package org.jverity.avb.verify;

import java.util.regex.Pattern;

/** POSIX shell quoting for the commands jverity prints for a user to paste. */
final class ShellWords {
  /** Characters no shell splits on or expands. */
  private static final Pattern PLAIN = Pattern.compile("[A-Za-z0-9_./=:,+@%-]+");

  private ShellWords() {}

  /** {@code word} as is when a shell leaves it alone, else in single quotes. */
  static String quote(String word) {
    if (PLAIN.matcher(word).matches()) {
      return word;
    }
    return "'" + word.replace("'", "'\\''") + "'";
  }
}
