package org.jverity.cli.serve;

import java.nio.file.Path;
import org.jverity.cli.command.CliException;
import org.jverity.cli.command.ExitCode;
import org.jverity.cli.syntax.OutputFile;
import org.jverity.cli.syntax.Syntax;
import org.jverity.server.Endpoint;
import org.jverity.server.Service;

/**
 * How {@code open} and {@code serve} run as a service: {@code --pid-file} ({@link PidFile}), {@code
 * --run} ({@link CaptiveRun}) and {@code --exit-with-parent} ({@link ParentWatch}), as nbdkit
 * spells them. Not changed once the server runs.
 */
public final class ServiceOptions {
  /** None of them: a server that runs until it is stopped. */
  public static final ServiceOptions NONE = new ServiceOptions();

  public Path pidFile;
  public String run;
  public boolean exitWithParent;

  static final Syntax<ServiceOptions> SYNTAX =
      Syntax.<ServiceOptions>group()
          .option(
              "--pid-file",
              "FILE",
              "Write the server's process id to FILE once it listens (mode 0644);"
                  + " removed on exit. Never an input file.",
              (c, v) -> c.pidFile = OutputFile.parse(v))
          .option(
              "--run",
              "CMD",
              "Captive mode, as nbdkit's: once listening, run CMD with sh -c, $uri and $nbd"
                  + " set to the (first) export's URI, also $exportname, $port, $unixsocket, $tls; stop when it"
                  + " exits and exit with its status. No URI is printed. SIGINT/SIGTERM stop CMD too.",
              (c, v) -> c.run = v)
          .flag(
              "--exit-with-parent",
              "Stop (exit 0) when the process that started jverity exits (checked"
                  + " twice a second).",
              c -> c.exitWithParent = true);

  /** The values, for the server. */
  public Service toService() {
    return new Service(pidFile, run, exitWithParent);
  }

  /** Refuses what cannot work with {@code listening}: a command to run has no URI over stdin. */
  public void check(Endpoint listening) {
    if (run != null && listening.stdin()) {
      throw new CliException(
          ExitCode.USAGE, "--run needs a server that listens: give no --stdin with it");
    }
    if (run != null && run.isBlank()) {
      throw new CliException(
          ExitCode.INVALID_PARAMETER, "--run: \"" + run + "\" (expected: a shell command)");
    }
  }
}
