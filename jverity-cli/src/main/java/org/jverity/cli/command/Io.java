package org.jverity.cli.command;

import java.io.PrintWriter;
import java.util.Map;
import java.util.Set;
import org.jverity.text.Json;

/**
 * What a running command is given besides its options: where to write, and the global switches.
 *
 * @param out standard output (results)
 * @param err standard error (messages, progress)
 * @param given the options the command line gave, by their longest name ({@code "--port"}), to tell
 *     a default from the same value given
 * @param debug whether {@code --debug} asks for diagnostic lines on stderr (each starts with "# ")
 * @param json where a {@code --json} result goes; null when the command line has no {@code --json}
 * @param ownsProcess whether the command runs as the process's {@code main}: a server then hooks
 *     SIGINT, SIGTERM and SIGHUP and ends the JVM with its exit code; run inside another program's
 *     JVM (a test's), it hooks nothing and is stopped through its status sockets
 */
public record Io(
    PrintWriter out,
    PrintWriter err,
    Set<String> given,
    boolean debug,
    JsonOutput json,
    boolean ownsProcess) {
  public Io {
    given = Set.copyOf(given);
  }

  /**
   * A command's {@code --json} result: printed on stdout once the exit code is known, with {@code
   * "ok"} and {@code "exitCode"} ({@link JsonOutput}).
   */
  public void result(Map<String, Object> fields) {
    if (json != null) {
      json.result(fields);
    } else { // --json came after "--": no object was promised, but the command was asked for one
      out.print(Json.write(fields));
    }
  }

  /** A diagnostic line on stderr, under --debug only. */
  public void debug(String line) {
    if (debug) {
      err.println("# " + line);
    }
  }
}
