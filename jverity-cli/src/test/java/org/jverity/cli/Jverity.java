package org.jverity.cli;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.jverity.cli.command.ExitCodeRule;

/**
 * Runs jverity in-process through {@link Main#run}, capturing both streams, with jverity's detailed
 * exit codes on every command ({@link #DETAILED}): the tests assert what each kind of failure is.
 */
public final class Jverity {
  private Jverity() {}

  /**
   * The environment variable and value that ask for jverity's detailed exit codes on every command.
   */
  static final Map<String, String> DETAILED = Map.of(ExitCodeRule.ENV, "detailed");

  /** The process's environment, with {@link #DETAILED}. */
  static Map<String, String> environment() {
    Map<String, String> env = new HashMap<>(System.getenv());
    env.putAll(DETAILED);
    return env;
  }

  /** Sets {@link #DETAILED} in the environment of a process that runs bin/jverity or the jar. */
  public static ProcessBuilder detailed(ProcessBuilder b) {
    b.environment().putAll(DETAILED);
    return b;
  }

  public static ToolRun run(String... args) {
    StringWriter out = new StringWriter();
    StringWriter err = new StringWriter();
    int code;
    try (PrintWriter o = new PrintWriter(out);
        PrintWriter e = new PrintWriter(err)) {
      code = Main.run(o, e, environment(), args);
    }
    return new ToolRun(code, out.toString(), err.toString());
  }

  public static ToolRun run(List<String> args) {
    return run(args.toArray(String[]::new));
  }
}
