package org.jverity.cli.command;

/** One jverity command; its parsed command line is in its fields (see its {@code SYNTAX}). */
public interface Command {
  /**
   * Runs the command and returns its exit code ({@link ExitCode}); a failure may also be thrown,
   * and {@link Main} turns it into one line on stderr and its exit code.
   */
  int run(Io io) throws Exception;

  /**
   * veritysetup's exit code for this run having ended with jverity's {@code code}, when the command
   * line asks for veritysetup's codes ({@link ExitCodeRule}): {@link VeritysetupExitCodes#of}
   * unless veritysetup's own verb exits otherwise for the options given.
   */
  default int veritysetupExitCode(int code) {
    return VeritysetupExitCodes.of(code);
  }
}
