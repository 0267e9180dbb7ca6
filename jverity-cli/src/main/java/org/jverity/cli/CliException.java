package org.jverity.cli;

/** A failure the command line reports as one line on stderr and a distinct exit code. */
final class CliException extends RuntimeException {
  private final int exitCode;

  CliException(int exitCode, String message) {
    super(message);
    this.exitCode = exitCode;
  }

  int exitCode() {
    return exitCode;
  }
}
