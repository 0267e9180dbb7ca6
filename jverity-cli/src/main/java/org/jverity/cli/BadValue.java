package org.jverity.cli;

/**
 * An option or argument value refused while parsing. A converter throws it knowing only what was
 * expected; {@link Syntax} adds the option's name and the value, and {@link Main} prints "NAME:
 * VALUE (expected: ...)" and exits with {@link #exitCode()}.
 */
final class BadValue extends IllegalArgumentException {
  private final String expected;
  private final int exitCode;
  private final String name;
  private final String value;

  /** A value jverity cannot use: {@link ExitCode#INVALID_PARAMETER}. */
  BadValue(String expected) {
    this(expected, ExitCode.INVALID_PARAMETER, null, null);
  }

  private BadValue(String expected, int exitCode, String name, String value) {
    super(name == null ? "expected: " + expected
        : name + ": " + (value.isEmpty() ? "\"\"" : value) + " (expected: " + expected + ")");
    this.expected = expected;
    this.exitCode = exitCode;
    this.name = name;
    this.value = value;
  }

  /** Not even of the value's type (a number expected): a command line not understood, {@link ExitCode#USAGE}. */
  static BadValue usage(String expected) {
    return new BadValue(expected, ExitCode.USAGE, null, null);
  }

  /** The same refusal, naming the option (or parameter) and the value given. */
  BadValue of(String name, String value) {
    return new BadValue(expected, exitCode, name, value);
  }

  /** What the value should have been, e.g. "a file name". */
  String expected() {
    return expected;
  }

  int exitCode() {
    return exitCode;
  }
}
