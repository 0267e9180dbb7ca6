package org.jverity.cli.term;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;

/**
 * The width of the terminal, in columns: {@code $COLUMNS} when set (shells set it, and a user can
 * force a width with it), else what {@code stty size} says of the terminal itself, else 80. Java
 * has no ioctl; {@code stty} costs a few milliseconds and runs on the bar's own thread, never
 * before the work starts.
 */
final class TerminalColumns {
  static final int DEFAULT = 80;

  private TerminalColumns() {}

  /**
   * @param columnsVariable the value of {@code $COLUMNS}, or null
   * @param terminal the terminal device to ask {@code stty} about (e.g. {@code /dev/pts/3}), or
   *     null
   */
  static int of(String columnsVariable, Path terminal) {
    int n = parseColumns(columnsVariable);
    if (n > 0) {
      return n;
    }
    if (terminal != null) {
      n = parseStty(stty(terminal));
      if (n > 0) {
        return n;
      }
    }
    return DEFAULT;
  }

  /** A positive width from {@code $COLUMNS}, or 0 when unset or not a positive number. */
  static int parseColumns(String value) {
    if (value == null) {
      return 0;
    }
    try {
      return Math.max(0, Integer.parseInt(value.strip()));
    } catch (NumberFormatException e) {
      return 0;
    }
  }

  /**
   * The columns from {@code stty size} output ("ROWS COLUMNS"), or 0 when it says nothing usable.
   */
  static int parseStty(String output) {
    if (output == null) {
      return 0;
    }
    String[] f = output.strip().split("\\s+");
    return f.length == 2 ? parseColumns(f[1]) : 0; // a terminal without a size says "0 0"
  }

  /** What {@code stty size} prints with its stdin on {@code terminal}, or null when it fails. */
  private static String stty(Path terminal) {
    try {
      Process p =
          new ProcessBuilder("stty", "size")
              .redirectInput(terminal.toFile())
              .redirectError(ProcessBuilder.Redirect.DISCARD)
              .start();
      String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.US_ASCII);
      if (!p.waitFor(1, TimeUnit.SECONDS) || p.exitValue() != 0) {
        p.destroy();
        return null;
      }
      return out;
    } catch (IOException e) {
      return null; // no stty (or the terminal is gone): the default will do
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return null;
    }
  }
}
