package org.jverity.cli.syntax;

/**
 * A command line that does not fit the command's syntax: an unknown option, a missing or extra
 * parameter. {@link Main} prints it in one line with a pointer to the command's help and exits with
 * {@link ExitCode#USAGE}.
 */
public final class UsageException extends RuntimeException {
  public UsageException(String message) {
    super(message);
  }
}
