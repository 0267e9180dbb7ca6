package org.jverity.cli.term;

/**
 * One frame of the progress bar as text, fitted to the terminal's width. Pure, so that the width,
 * the 100% frame and the rate are tested without a terminal.
 */
final class ProgressLine {
  /** Cells of the bar at most: a wide terminal gets a readable line, not a long one. */
  static final int MAX_BAR = 50;

  /** Fewer cells than this say nothing the percentage does not: the bar is left out. */
  static final int MIN_BAR = 10;

  private ProgressLine() {}

  /**
   * The frame, at most {@code columns - 1} characters: the cursor never reaches the last column,
   * where some terminals wrap at once and the next {@code \r} would redraw on a new line.
   *
   * @param done bytes done, clamped to {@code [0, total]}
   * @param total bytes in all; 0 counts as done
   * @param bytesPerSecond the current rate, or negative when not yet known
   * @param columns the terminal's width, in characters
   */
  static String render(String label, long done, long total, double bytesPerSecond, int columns) {
    long d = Math.clamp(done, 0, Math.max(0, total));
    String text =
        "%3d%%  %s / %s".formatted(percent(d, total), Units.bytes(d), Units.bytes(total))
            + (bytesPerSecond >= 0 ? "  %.0f MB/s".formatted(bytesPerSecond / 1e6) : "");
    int room = columns - 1;
    int cells = Math.min(MAX_BAR, room - label.length() - " [] ".length() - text.length());
    String line;
    if (cells >= MIN_BAR) {
      int filled = (int) (total <= 0 ? cells : cells * d / total); // <= cells, fits int
      line = label + " [" + "#".repeat(filled) + ".".repeat(cells - filled) + "] " + text;
    } else {
      line = label + " " + text;
    }
    return line.length() <= room ? line : line.substring(0, Math.max(0, room));
  }

  /**
   * Whole percent done, rounded down: 100 only when everything is done, so a bar at 100% never
   * means "almost".
   */
  static int percent(long done, long total) {
    if (total <= 0 || done >= total) {
      return 100;
    }
    return (int) Math.min(99, Math.max(0, (long) (100.0 * done / total)));
  }
}
