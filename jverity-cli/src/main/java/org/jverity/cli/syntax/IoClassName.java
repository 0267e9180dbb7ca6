package org.jverity.cli.syntax;

import java.util.Locale;
import org.jverity.verify.IoClass;

/**
 * An I/O class by its ionice name: {@code none}, {@code real-time}, {@code best-effort} or {@code
 * idle} (underscores and case do not matter). Stateless.
 */
public final class IoClassName {
  /** The names, as completion offers them (the aliases rt, be and realtime are taken too). */
  public static final java.util.List<String> NAMES =
      java.util.List.of("none", "real-time", "best-effort", "idle");

  public static final String EXPECTED = "none, real-time, best-effort or idle";

  public static IoClass parse(String text) {
    String key = text.toLowerCase(Locale.ROOT).replace('_', '-');
    return switch (key) {
      case "none" -> IoClass.NONE;
      case "real-time", "realtime", "rt" -> IoClass.REAL_TIME;
      case "best-effort", "be" -> IoClass.BEST_EFFORT;
      case "idle" -> IoClass.IDLE;
      default -> throw new BadValue(EXPECTED);
    };
  }
}
