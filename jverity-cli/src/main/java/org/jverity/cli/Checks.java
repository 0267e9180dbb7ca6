package org.jverity.cli;

import java.nio.file.Files;
import java.nio.file.Path;

/** Early, one-line checks of the files a command is given. */
final class Checks {
  private Checks() {}

  /** A --threads value, when given, must be at least 1. */
  static void requireThreads(Integer threads) {
    if (threads != null && threads < 1) {
      throw new CliException(ExitCode.USAGE, "--threads: " + threads + " (expected: at least 1)");
    }
  }

  /** A hash block cache holds at least one byte's worth (it rounds up to whole blocks). */
  static void requireCacheSize(long bytes) {
    if (bytes < 1) {
      throw new CliException(ExitCode.INVALID_PARAMETER, "--cache-size: " + bytes + " (expected: at least 1 byte)");
    }
  }

  static void requireFile(Path p, String what) {
    if (!Files.exists(p)) {
      throw new CliException(ExitCode.IO_ERROR, p + ": " + what + " file does not exist");
    }
    if (Files.isDirectory(p)) {
      throw new CliException(ExitCode.IO_ERROR, p + ": " + what + " file is a directory");
    }
    if (!Files.isReadable(p)) {
      throw new CliException(ExitCode.IO_ERROR, p + ": " + what + " file is not readable");
    }
  }
}
