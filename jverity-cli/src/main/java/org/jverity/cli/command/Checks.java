package org.jverity.cli.command;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/** Early, one-line checks of the files a command is given. */
public final class Checks {
  private Checks() {}

  /** A --threads value, when given, must be at least 1. */
  public static void requireThreads(Integer threads) {
    if (threads != null && threads < 1) {
      throw new CliException(ExitCode.USAGE, "--threads: " + threads + " (expected: at least 1)");
    }
  }

  /** A hash block cache holds at least one byte's worth (it rounds up to whole blocks). */
  public static void requireCacheSize(long bytes) {
    if (bytes < 1) {
      throw new CliException(
          ExitCode.INVALID_PARAMETER, "--cache-size: " + bytes + " (expected: at least 1 byte)");
    }
  }

  /**
   * An output that exists must be a regular file or a block device: /dev/null, a terminal or a pipe
   * cannot be read back (format reads the levels it wrote) nor positioned, as veritysetup's "Device
   * /dev/null is not compatible". A missing one is created.
   */
  public static void requireOutputDevice(Path p, String what) throws IOException {
    if (!Files.exists(p) || Files.isRegularFile(p)) {
      return;
    }
    if (Files.isDirectory(p)) {
      throw new CliException(ExitCode.IO_ERROR, p + ": the " + what + " is a directory");
    }
    int type = (Integer) Files.getAttribute(p, "unix:mode") & 0170000;
    String kind =
        switch (type) {
          case 0060000 -> null; // a block device
          case 0020000 -> "a character device";
          case 0010000 -> "a pipe";
          case 0140000 -> "a socket";
          default -> "not a regular file";
        };
    if (kind != null) {
      throw new CliException(
          ExitCode.IO_ERROR,
          p + ": the " + what + " is " + kind + " (expected: a regular file or a block device)");
    }
  }

  public static void requireFile(Path p, String what) {
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
