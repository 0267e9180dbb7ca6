package org.jverity.testkit;

import java.time.Duration;
import java.util.List;

/**
 * The reference implementation: cryptsetup's {@code veritysetup} ({@code /usr/sbin}), run in the C
 * locale so that its messages are the ones the tests compare.
 */
public final class Veritysetup {
  /** Longest a single run may take; the test images are at most a few MiB. */
  public static final Duration TIMEOUT = Duration.ofSeconds(60);

  private static final Tool TOOL = Tool.of("veritysetup").env("LC_ALL", "C").timeout(TIMEOUT);

  private Veritysetup() {}

  /** veritysetup, for a test that sets more (a directory, its input). */
  public static Tool tool() {
    return TOOL;
  }

  /** Runs {@code veritysetup args...} to its end, whatever its exit status. */
  public static ToolResult run(List<String> args) {
    return TOOL.run(args);
  }

  /** Runs {@code veritysetup args...} to its end, whatever its exit status. */
  public static ToolResult run(String... args) {
    return TOOL.run(args);
  }
}
