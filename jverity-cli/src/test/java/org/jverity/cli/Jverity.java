package org.jverity.cli;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.util.List;

/** Runs jverity in-process through {@link Main#run}, capturing both streams. */
final class Jverity {
  private Jverity() {}

  static ToolRun run(String... args) {
    StringWriter out = new StringWriter();
    StringWriter err = new StringWriter();
    int code;
    try (PrintWriter o = new PrintWriter(out);
        PrintWriter e = new PrintWriter(err)) {
      code = Main.run(o, e, args);
    }
    return new ToolRun(code, out.toString(), err.toString());
  }

  static ToolRun run(List<String> args) {
    return run(args.toArray(String[]::new));
  }
}
