package org.jverity.cli.syntax;

/**
 * An option or argument value refused while parsing. A converter throws it knowing only what was
 * expected; {@link Syntax} adds the option's name and the value, and the command line prints "NAME:
 * VALUE (expected: ...)" and exits with the exit code of its {@link #kind()}.
 */
public final class BadValue extends IllegalArgumentException {
  private final String expected;
  private final Kind kind;
  private final String name;
  private final String value;

  /** Whether the value was not understood or understood and refused: the two exit codes. */
  public enum Kind {
    /** Not even of the value's type (a number expected): a command line not understood. */
    USAGE,
    /** Understood, and a value jverity cannot use. */
    INVALID
  }

  /** A value jverity cannot use: {@link Kind#INVALID}. */
  public BadValue(String expected) {
    this(expected, Kind.INVALID, null, null);
  }

  private BadValue(String expected, Kind kind, String name, String value) {
    super(
        name == null
            ? "expected: " + expected
            : name + ": " + (value.isEmpty() ? "\"\"" : value) + " (expected: " + expected + ")");
    this.expected = expected;
    this.kind = kind;
    this.name = name;
    this.value = value;
  }

  /** Not even of the value's type (a number expected): {@link Kind#USAGE}. */
  static BadValue usage(String expected) {
    return new BadValue(expected, Kind.USAGE, null, null);
  }

  /** The same refusal, naming the option (or parameter) and the value given. */
  BadValue of(String name, String value) {
    return new BadValue(expected, kind, name, value);
  }

  /** What the value should have been, e.g. "a file name". */
  String expected() {
    return expected;
  }

  public Kind kind() {
    return kind;
  }
}
