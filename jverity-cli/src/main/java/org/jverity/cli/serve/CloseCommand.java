package org.jverity.cli.serve;

import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import org.jverity.cli.command.CliException;
import org.jverity.cli.command.Command;
import org.jverity.cli.command.ExitCode;
import org.jverity.cli.command.Io;
import org.jverity.cli.syntax.FileName;
import org.jverity.cli.syntax.Syntax;
import org.jverity.server.RuntimeDir;
import org.jverity.server.Server;
import org.jverity.server.ServerLog;
import org.jverity.server.StatusSocket;

/**
 * {@code jverity close NAME}: veritysetup close's verb. Asks the running {@code open} or {@code
 * serve} that serves export NAME, through its status socket, to stop serving it: new clients no
 * longer find it, its connections are drained and closed, its files released. A server left with no
 * export exits 0, as on SIGTERM. Returns once that is done; prints nothing.
 */
public final class CloseCommand implements Command {
  /** Requests in flight may take {@link Server#GRACE} to finish, then the devices close. */
  private static final Duration TIMEOUT = Server.GRACE.plusSeconds(30);

  String name;
  Path runtimeDir;

  public static final Syntax<CloseCommand> SYNTAX =
      Syntax.command(
              "close",
              "Stop serving export NAME of a running open or serve (veritysetup close): its clients are"
                  + " disconnected once their requests in flight have answered, its files are closed, and a server"
                  + " left with no export exits 0. Refused when the runtime directory or the server is not your own.",
              CloseCommand::new)
          .parameter("NAME", "Export name.", (c, v) -> c.name = v)
          .option(
              "--runtime-dir",
              "DIR",
              "Where servers put their status sockets (default " + RuntimeDir.DEFAULTS + ").",
              (c, v) -> c.runtimeDir = FileName.parse(v));

  @Override
  public int run(Io io) throws IOException {
    Path dir = RuntimeDir.resolve(runtimeDir);
    Path socket = RuntimeDir.socket(dir, name);
    StatusSocket.Reply reply =
        RuntimeDir.existing(dir)
            ? StatusSocket.ask(socket, StatusSocket.CLOSE, TIMEOUT)
            : new StatusSocket.Reply(null, false);
    if (!reply.listening()) {
      throw new CliException(
          ExitCode.INACTIVE,
          ServerLog.display(name) + " is inactive (no server answers at " + socket + ")");
    }
    if (!reply.answered()) {
      throw new CliException(
          ExitCode.IO_ERROR,
          ServerLog.display(name)
              + ": the server did not finish closing it"
              + " within "
              + TIMEOUT.toSeconds()
              + " s");
    }
    if (!reply.text().startsWith(StatusSocket.CLOSING)) {
      throw new CliException(
          ExitCode.IO_ERROR,
          ServerLog.display(name) + ": " + reply.text().strip().replaceFirst("^error: ", ""));
    }
    return ExitCode.OK;
  }
}
