package org.jverity.cli.serve;

import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import org.jverity.cli.command.Command;
import org.jverity.cli.command.ExitCode;
import org.jverity.cli.command.Io;
import org.jverity.cli.syntax.FileName;
import org.jverity.cli.syntax.Syntax;
import org.jverity.server.Server;
import org.jverity.server.status.RuntimeDir;
import org.jverity.server.status.StatusSocket;

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
              (c, v) -> c.runtimeDir = FileName.parse(v))
          .example(
              "Stop serving export disk once its requests in flight are answered:",
              "jverity close disk");

  @Override
  public int run(Io io) throws IOException {
    String answer = ServerRequest.ask(runtimeDir, name, StatusSocket.CLOSE, TIMEOUT, "closing it");
    if (!answer.startsWith(StatusSocket.CLOSING.strip())) {
      throw ServerRequest.refused(name, answer);
    }
    return ExitCode.OK;
  }
}
