package org.jverity.cli.doc;

/**
 * Text made safe for man(7) roff: a backslash is roff's escape, and a line starting with a dot or
 * an apostrophe is a request; dashes in option names are {@code \-} so that they render as the
 * ASCII hyphen-minus a user types (and searches for) rather than a typographic hyphen.
 */
final class Roff {
  private Roff() {}

  /** Input lines no longer than this (mandoc's style check): roff fills them into paragraphs. */
  static final int WIDTH = 78;

  /** Running text, broken at spaces into input lines of at most {@link #WIDTH}. */
  static String text(String s) {
    String t = s.replace("\\", "\\e");
    StringBuilder b = new StringBuilder();
    for (String paragraph : t.split("\n", -1)) {
      StringBuilder line = new StringBuilder();
      for (String word : paragraph.split(" +")) {
        if (!line.isEmpty() && line.length() + 1 + word.length() > WIDTH) {
          emit(b, line.toString());
          line.setLength(0);
        }
        line.append(line.isEmpty() ? "" : " ").append(word);
      }
      emit(b, line.toString());
    }
    return b.toString();
  }

  private static void emit(StringBuilder b, String line) {
    if (!b.isEmpty()) {
      b.append('\n');
    }
    if (line.startsWith(".") || line.startsWith("'")) {
      b.append("\\&");
    }
    b.append(line);
  }

  /** An option name or a command line: every dash is the minus a user types. */
  static String literal(String s) {
    return text(s).replace("-", "\\-");
  }
}
