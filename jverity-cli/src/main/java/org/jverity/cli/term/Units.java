package org.jverity.cli.term;

/** Human-readable sizes and rates for messages. */
final class Units {
  private Units() {}

  static String bytes(long n) {
    if (n < 1024) {
      return n + " B";
    }
    String[] units = {"KiB", "MiB", "GiB", "TiB", "PiB", "EiB"};
    double v = n;
    int u = -1;
    while (v >= 1024 && u < units.length - 1) {
      v /= 1024;
      u++;
    }
    return String.format("%.1f %s", v, units[u]);
  }
}
