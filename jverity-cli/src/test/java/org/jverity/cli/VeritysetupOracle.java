package org.jverity.cli;

import java.util.List;
import org.jverity.testkit.ToolResult;
import org.jverity.testkit.Veritysetup;

/**
 * The reference implementation, the test kit's {@link Veritysetup}, its run as a {@link ToolRun} so
 * that the compatibility tests compare it with jverity's field by field. A missing veritysetup
 * fails the test naming its package; the compatibility tests never skip.
 */
final class VeritysetupOracle {
  private VeritysetupOracle() {}

  /** Runs {@code veritysetup args...} and waits for it, at most {@link Veritysetup#TIMEOUT}. */
  static ToolRun run(String... args) {
    return run(List.of(args));
  }

  /** Runs {@code veritysetup args...} and waits for it, at most {@link Veritysetup#TIMEOUT}. */
  static ToolRun run(List<String> args) {
    ToolResult r = Veritysetup.run(args);
    return new ToolRun(r.exit(), r.out(), r.stderr());
  }
}
