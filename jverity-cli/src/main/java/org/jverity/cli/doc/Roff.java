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

  /**
   * A shell command line for an unfilled display, broken into lines of at most {@link #WIDTH}
   * ending in a backslash, the shell's own continuation, so that it still runs as copied. It is
   * broken only before an option, so that an option stays beside its value, and never inside
   * quotes, where a backslash and newline would be part of the word.
   */
  static java.util.List<String> commandLine(String s) {
    java.util.List<String> units = new java.util.ArrayList<>();
    boolean quoted = false;
    for (String word : s.split(" ")) {
      if (units.isEmpty() || (!quoted && word.startsWith("-"))) {
        units.add(word);
      } else {
        units.set(units.size() - 1, units.getLast() + " " + word);
      }
      quoted ^= (word.chars().filter(c -> c == '"' || c == '\'').count() & 1) == 1;
    }
    java.util.List<String> lines = new java.util.ArrayList<>();
    String line = "";
    for (String unit : units) {
      if (!line.isBlank() && line.length() + 1 + unit.length() + 2 > WIDTH - 8) {
        lines.add(line + " \\");
        line = "    "; // a continued line is indented, as one writes them by hand
      }
      line += (line.isBlank() ? "" : " ") + unit;
    }
    lines.add(line);
    return lines.stream().map(l -> "\\fB" + unfilled(l) + "\\fR").toList();
  }

  /** One line as it is (no wrapping): the escape, a leading request character, dashes as minus. */
  static String unfilled(String s) {
    String t = s.replace("\\", "\\e").replace("-", "\\-");
    return t.startsWith(".") || t.startsWith("'") ? "\\&" + t : t;
  }

  /** An option name or a command line: every dash is the minus a user types. */
  static String literal(String s) {
    return text(s).replace("-", "\\-");
  }
}
