package org.jverity.cli;

import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/**
 * {@code jverity status NAME}: like {@code veritysetup status}, asks the running {@code open} or
 * {@code serve} that serves export NAME, through its status socket, and prints its report.
 */
@Command(
    name = "status",
    description = "Show the status of export NAME of a running open or serve, like veritysetup status:"
        + " verified or corrupted, the tree's parameters, devices, root hash, counts. Exit 13 when no"
        + " server serves NAME.")
final class StatusCommand implements Callable<Integer> {
  @picocli.CommandLine.Spec picocli.CommandLine.Model.CommandSpec spec;

  private static final Duration TIMEOUT = Duration.ofSeconds(10);

  @Parameters(index = "0", paramLabel = "NAME", description = "Export name.")
  String name;

  @Option(names = "--runtime-dir", paramLabel = "DIR",
      description = "Where servers put their status sockets (default $JVERITY_RUNTIME_DIR, $XDG_RUNTIME_DIR/jverity or /run/jverity).")
  Path runtimeDir;

  @Override
  public Integer call() {
    Path dir = RuntimeDir.resolve(runtimeDir);
    Path socket = RuntimeDir.socket(dir, name);
    String report = StatusSocket.query(socket, TIMEOUT);
    if (report == null) {
      throw new CliException(ExitCode.INACTIVE, ServerLog.display(name) + " is inactive (no server answers at "
          + socket + ")");
    }
    var out = spec.commandLine().getOut();
    out.print(report);
    out.flush();
    return ExitCode.OK;
  }
}
