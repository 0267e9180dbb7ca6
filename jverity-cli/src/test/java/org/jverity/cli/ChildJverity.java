package org.jverity.cli;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * jverity in a child JVM with its standard output sent to a file: {@code read} and {@code cat}
 * write the data to file descriptor 1, which an in-process run cannot capture, and stdout is where
 * the verified bytes before a bad block go (an {@code --output} file is written only on success).
 */
final class ChildJverity {
  private ChildJverity() {}

  /** Runs {@code jverity args...} with stdout to {@code stdout}; the ToolRun's stdout is empty. */
  static ToolRun run(Path stdout, String... args) throws IOException, InterruptedException {
    List<String> cmd = ServerProcess.javaCommand();
    cmd.addAll(List.of(args));
    Path err = Files.createTempFile(stdout.toAbsolutePath().getParent(), "child", ".err");
    Process p =
        new ProcessBuilder(cmd).redirectOutput(stdout.toFile()).redirectError(err.toFile()).start();
    if (!p.waitFor(2, TimeUnit.MINUTES)) {
      p.destroyForcibly();
      throw new AssertionError("jverity " + String.join(" ", args) + ": no exit within 2 minutes");
    }
    String stderr = Files.readString(err);
    Files.delete(err);
    return new ToolRun(p.exitValue(), "", stderr);
  }
}
