package org.jverity.cli;

import java.nio.file.Path;
import java.time.Duration;

/**
 * {@code jverity status NAME}: like {@code veritysetup status}, asks the running {@code open} or
 * {@code serve} that serves export NAME, through its status socket, and prints its report.
 */
final class StatusCommand implements Command {
  private static final Duration TIMEOUT = Duration.ofSeconds(10);

  String name;
  Path runtimeDir;
  boolean json;

  static final Syntax<StatusCommand> SYNTAX = Syntax.command("status",
      "Show the status of export NAME of a running open or serve, like veritysetup status:"
        + " verified or corrupted, the tree's parameters, devices, root hash, counts. Exit 13 when no"
        + " server serves NAME.",
      StatusCommand::new)
      .parameter("NAME", "Export name.", (c, v) -> c.name = v)
      .option("--runtime-dir", "DIR", "Where servers put their status sockets (default $JVERITY_RUNTIME_DIR, $XDG_RUNTIME_DIR/jverity or /run/jverity).", (c, v) -> c.runtimeDir = FileName.parse(v))
      .flag("--json", "Print the status as one JSON object (the same facts; sizes in bytes).", c -> c.json = true);

  @Override
  public int run(Io io) {
    Path dir = RuntimeDir.resolve(runtimeDir);
    Path socket = RuntimeDir.socket(dir, name);
    String report = StatusSocket.query(socket, json ? StatusSocket.JSON_REQUEST : StatusSocket.REQUEST, TIMEOUT);
    if (report == null) {
      throw new CliException(ExitCode.INACTIVE, ServerLog.display(name) + " is inactive (no server answers at "
          + socket + ")");
    }
    if (json) {
      io.result(exportJson(report, socket));
      return ExitCode.OK;
    }
    var out = io.out();
    out.print(report);
    out.flush();
    return ExitCode.OK;
  }

  /** The serving process's JSON object for one export ({@link StatusReport#json}). */
  @SuppressWarnings("unchecked")
  static java.util.Map<String, Object> exportJson(String reply, Path socket) {
    try {
      if (Json.parse(reply) instanceof java.util.Map<?, ?> m) {
        return (java.util.Map<String, Object>) m;
      }
    } catch (IllegalArgumentException e) {
      // said below
    }
    throw new CliException(ExitCode.IO_ERROR, "the server at " + socket + " does not answer status in JSON"
        + " (a jverity older than --json?)");
  }
}
