package org.jverity.cli.serve;

import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import org.jverity.cli.command.CliException;
import org.jverity.cli.command.ExitCode;
import org.jverity.server.ServerLog;
import org.jverity.server.status.RuntimeDir;
import org.jverity.server.status.StatusSocket;

/**
 * A request to the server serving export NAME, through its status socket, for the commands that ask
 * it to act ({@code close}, {@code reload}): the two ways it can go wrong before the server says
 * anything (nobody serves NAME: exit 13; no answer in time: exit 4) said once.
 */
final class ServerRequest {
  private ServerRequest() {}

  /**
   * Sends {@code request} to export {@code name}'s server and returns its answer; {@code doing}
   * names the work in the timeout's message ("closing it").
   */
  static String ask(Path runtimeDir, String name, String request, Duration timeout, String doing)
      throws IOException {
    Path dir = RuntimeDir.resolve(runtimeDir);
    Path socket = RuntimeDir.socket(dir, name);
    StatusSocket.Reply reply =
        RuntimeDir.existing(dir)
            ? StatusSocket.ask(socket, request, timeout)
            : new StatusSocket.Reply(null, false);
    if (!reply.listening()) {
      throw new CliException(
          ExitCode.INACTIVE,
          ServerLog.display(name) + " is inactive (no server answers at " + socket + ")");
    }
    if (!reply.answered() || reply.text().isEmpty()) {
      throw new CliException(
          ExitCode.IO_ERROR,
          ServerLog.display(name)
              + ": the server did not finish "
              + doing
              + " within "
              + timeout.toSeconds()
              + " s");
    }
    return reply.text().strip();
  }

  /** The server's refusal {@code line} (an {@code error: } line) as the command's failure. */
  static CliException refused(String name, String line) {
    return new CliException(
        ExitCode.IO_ERROR, ServerLog.display(name) + ": " + line.replaceFirst("^error: ", ""));
  }
}
