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

  static final Syntax<StatusCommand> SYNTAX = Syntax.command("status",
      "Show the status of export NAME of a running open or serve, like veritysetup status:"
        + " verified or corrupted, the tree's parameters, devices, root hash, counts. Exit 4 (13 with"
        + " --detailed-exit-codes) when no server serves NAME, as veritysetup for an inactive device.",
      StatusCommand::new)
      .parameter("NAME", "Export name.", (c, v) -> c.name = v)
      .option("--runtime-dir", "DIR", "Where servers put their status sockets (default $JVERITY_RUNTIME_DIR, $XDG_RUNTIME_DIR/jverity or /run/jverity).", (c, v) -> c.runtimeDir = FileName.parse(v));

  @Override
  public int run(Io io) {
    Path dir = RuntimeDir.resolve(runtimeDir);
    Path socket = RuntimeDir.socket(dir, name);
    String report = StatusSocket.query(socket, TIMEOUT);
    if (report == null) {
      throw new CliException(ExitCode.INACTIVE, ServerLog.display(name) + " is inactive (no server answers at "
          + socket + ")");
    }
    var out = io.out();
    out.print(report);
    out.flush();
    return ExitCode.OK;
  }
}
