package org.jverity.cli.serve;

import static org.jverity.cli.command.ExitCode.INVALID_PARAMETER;
import static org.jverity.cli.command.ExitCode.IO_ERROR;
import static org.jverity.cli.command.ExitCode.OK;
import static org.jverity.cli.command.ExitCode.PANIC;
import static org.jverity.cli.command.ExitCode.RESTART;
import static org.jverity.cli.command.ExitCode.USAGE;

import org.jverity.cli.command.Io;
import org.jverity.server.Outcome;
import org.jverity.server.ProcessHooks;
import org.jverity.server.ServerException;
import org.jverity.server.process.JvmProcess;

/**
 * The daemon's ends and refusals as exit codes (the one place the server's reasons become codes),
 * and the process a server hooks into (the JVM's only when the command is the process's main), here
 * beside open and serve, so that {@code ExitCode} and the one-shot commands need nothing of the
 * daemon.
 */
public final class ServerExitCodes {
  private ServerExitCodes() {}

  /** The exit code of what the server refused or could not do. */
  public static int of(ServerException.Reason reason) {
    return switch (reason) {
      case CONFLICT -> USAGE;
      case INVALID_VALUE -> INVALID_PARAMETER;
      case IO -> IO_ERROR;
    };
  }

  /** The exit code of a server's run: --run's command's status is passed on as it is. */
  public static int of(Outcome outcome) {
    return switch (outcome.end()) {
      case STOPPED -> OK;
      case RESTART -> RESTART;
      case PANIC -> PANIC;
      case COMMAND_EXITED -> outcome.commandStatus();
    };
  }

  /**
   * The process a server of {@code open} or {@code serve} hooks into: the JVM's, ending with these
   * exit codes, when the command is the process's main; none inside a test's JVM.
   */
  static ProcessHooks process(Io io) {
    return io.ownsProcess() ? new JvmProcess(ServerExitCodes::of) : ProcessHooks.NONE;
  }
}
