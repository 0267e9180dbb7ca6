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
import org.jverity.server.Server;
import org.jverity.server.status.RuntimeDir;
import org.jverity.server.status.StatusSocket;

/**
 * {@code jverity reload NAME}: what SIGHUP does, through the status socket of export NAME, so that
 * it works where SIGHUP cannot reach the server (started under {@code nohup}, which leaves SIGHUP
 * ignored for good) and says how it went: the {@code serve} serving NAME rereads its config and
 * answers once done. Prints the log's line on success ({@code reloaded config: 1 added, ...}); a
 * refused reload is that line on stderr and the exit code the same mistake has when {@code serve}
 * starts. NAME is any export of that server: it names the server, whose every export the config
 * decides (one without a name would be ambiguous between servers).
 */
public final class ReloadCommand implements Command {
  /** A reload opens images and drains changed exports for up to {@link Server#GRACE}. */
  private static final Duration TIMEOUT = Server.GRACE.plusSeconds(30);

  String name;
  Path runtimeDir;

  public static final Syntax<ReloadCommand> SYNTAX =
      Syntax.command(
              "reload",
              "Make the running serve that serves export NAME reread its config, as SIGHUP does (which"
                  + " a server started under nohup never sees): exports added, removed or changed, the others"
                  + " untouched. Prints the line the server logs (reloaded config: 1 added, 0 removed, ...). A config"
                  + " with a mistake, a changed [generic] or an export that cannot open is refused whole, the old"
                  + " exports serve on, and reload exits with the code serve gives that mistake at start. Exit 13 when"
                  + " no server serves NAME; 4 when the server is not a serve (open has no config), or it or the"
                  + " runtime directory is not your own.",
              ReloadCommand::new)
          .parameter("NAME", "Any export of the server.", (c, v) -> c.name = v)
          .option(
              "--runtime-dir",
              "DIR",
              "Where servers put their status sockets (default " + RuntimeDir.DEFAULTS + ").",
              (c, v) -> c.runtimeDir = FileName.parse(v))
          .example(
              "Make the server of export disk reread its config, as SIGHUP does:",
              "jverity reload disk");

  @Override
  public int run(Io io) throws IOException {
    String line = ServerRequest.ask(runtimeDir, name, StatusSocket.RELOAD, TIMEOUT, "reloading");
    if (line.startsWith(StatusSocket.RELOADED)) {
      io.out().println(line);
      io.out().flush();
      return ExitCode.OK;
    }
    if (line.startsWith(StatusSocket.REFUSED)) {
      int colon = line.indexOf(':');
      try {
        int code = Integer.parseInt(line.substring(StatusSocket.REFUSED.length(), colon));
        throw new CliException(code, line.substring(colon + 1).strip());
      } catch (NumberFormatException | IndexOutOfBoundsException e) {
        // not jverity's answer: said below as it came
      }
    }
    throw ServerRequest.refused(name, line);
  }
}
