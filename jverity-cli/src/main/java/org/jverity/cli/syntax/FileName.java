package org.jverity.cli.syntax;

import java.nio.file.InvalidPathException;
import java.nio.file.Path;

/**
 * A file named on the command line. An empty name is refused here: {@code Path.of("")} is the
 * current directory, which would surface later as ": Is a directory". Stateless.
 */
public final class FileName {
  private FileName() {}

  public static Path parse(String value) {
    if (value.isEmpty()) {
      throw new BadValue("a file name");
    }
    try {
      return Path.of(value);
    } catch (InvalidPathException e) { // a NUL byte
      throw new BadValue("a file name");
    }
  }
}
