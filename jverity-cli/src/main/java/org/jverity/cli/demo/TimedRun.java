package org.jverity.cli.demo;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

/**
 * One whole process run by {@code demo}, timed from start to exit, as a shell's {@code time} would:
 * JVM start-up and everything else included.
 *
 * @param command the words run
 * @param exitCode its exit code
 * @param stdout what it wrote to stdout
 * @param stderr what it wrote to stderr
 * @param seconds wall-clock time from start to exit
 */
record TimedRun(List<String> command, int exitCode, String stdout, String stderr, double seconds) {
  TimedRun {
    command = List.copyOf(command);
  }

  /**
   * Runs {@code command} to its end; stderr goes through a file in {@code dir}, so neither pipe can
   * fill.
   */
  static TimedRun of(List<String> command, Path dir) throws IOException, InterruptedException {
    Path err = Files.createTempFile(dir, "stderr", ".txt");
    try {
      ProcessBuilder b = new ProcessBuilder(command).redirectError(err.toFile());
      b.environment().put("JVERITY_NO_PROGRESS", "1");
      long t0 = System.nanoTime();
      Process p = b.start();
      p.getOutputStream().close(); // nothing on stdin
      String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
      int code = p.waitFor();
      double seconds = (System.nanoTime() - t0) / 1e9;
      return new TimedRun(command, code, out, Files.readString(err), seconds);
    } finally {
      Files.deleteIfExists(err);
    }
  }

  /** Throws unless the process exited with {@code expected}. */
  TimedRun expect(int expected) throws IOException {
    if (exitCode != expected) {
      throw new IOException(
          SelfCommand.shellLine(command)
              + ": exit "
              + exitCode
              + " (expected: "
              + expected
              + "): "
              + (stderr + stdout).strip());
    }
    return this;
  }
}
