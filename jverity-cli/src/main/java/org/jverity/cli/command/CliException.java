package org.jverity.cli.command;

/** A failure the command line reports as one line on stderr and a distinct exit code. */
public final class CliException extends RuntimeException {
  private final int exitCode;

  public CliException(int exitCode, String message) {
    super(message);
    this.exitCode = exitCode;
  }

  public int exitCode() {
    return exitCode;
  }
}
