package org.jverity.cli;

import picocli.CommandLine;

/**
 * An option or argument value a converter refused. {@link Main} prints it as "NAME: VALUE
 * (expected: ...)", naming the option, and exits with {@link ExitCode#INVALID_PARAMETER}.
 */
final class BadValue extends CommandLine.TypeConversionException {
  private final String expected;

  BadValue(String expected) {
    super("expected: " + expected);
    this.expected = expected;
  }

  /** What the value should have been, e.g. "a file name". */
  String expected() {
    return expected;
  }
}
