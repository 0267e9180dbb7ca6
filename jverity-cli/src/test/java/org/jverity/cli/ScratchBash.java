package org.jverity.cli;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * A shell line run as a user runs it, for the tests of the README's and the man pages' examples:
 * bash in a scratch directory with the environment given, its output and exit status kept, and
 * every process it left behind stopped, also when it timed out.
 */
public final class ScratchBash {
  private ScratchBash() {}

  /** What the script printed (stdout and stderr together) and its exit status (-1: timed out). */
  public record Result(int code, String output) {}

  /** Runs {@code script} in {@code dir}; every process it left is stopped before this returns. */
  public static Result run(Path dir, Map<String, String> env, String script, int seconds)
      throws Exception {
    Path log = Files.createTempFile(dir, "bash", ".log");
    ProcessBuilder b =
        new ProcessBuilder("bash", "-c", script)
            .directory(dir.toFile())
            .redirectErrorStream(true)
            .redirectOutput(log.toFile());
    b.environment().putAll(env);
    Process p = b.start();
    try {
      if (!p.waitFor(seconds, TimeUnit.SECONDS)) {
        return new Result(-1, "no exit within " + seconds + " s: " + Files.readString(log));
      }
      return new Result(p.exitValue(), Files.readString(log));
    } finally {
      p.descendants().forEach(ProcessHandle::destroy);
      p.destroy();
      if (!p.waitFor(10, TimeUnit.SECONDS)) {
        p.descendants().forEach(ProcessHandle::destroyForcibly);
        p.destroyForcibly();
      }
      Files.deleteIfExists(log);
    }
  }
}
