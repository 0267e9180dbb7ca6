package org.jverity.cli.syntax;

import java.time.Duration;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A duration on the command line or in a config file: whole seconds, or a whole number with {@code
 * ms}, {@code s}, {@code m} or {@code h}, so {@code 90}, {@code 90s} and {@code 1500ms} all work;
 * {@code 0} means no limit. Stateless.
 */
public final class TimeSpan {
  public static final String EXPECTED = "seconds, or a number with ms, s, m or h (0: no limit)";

  private static final Pattern SPAN = Pattern.compile("([0-9]{1,9})(ms|s|m|h)?");

  public static Duration parse(String text) {
    Matcher m = SPAN.matcher(text);
    if (!m.matches()) {
      throw new BadValue(EXPECTED);
    }
    long n = Long.parseLong(m.group(1)); // at most 9 digits: fits
    String unit = m.group(2) == null ? "s" : m.group(2);
    return switch (unit) {
      case "ms" -> Duration.ofMillis(n);
      case "m" -> Duration.ofMinutes(n);
      case "h" -> Duration.ofHours(n);
      default -> Duration.ofSeconds(n);
    };
  }
}
