package org.jverity.testkit;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.fail;

import java.util.List;

/**
 * What a finished tool did.
 *
 * @param command the command line, the tool's absolute path first
 * @param exit its exit status
 * @param stdout everything it wrote to standard output (bytes: {@code nbdcopy -} writes images)
 * @param stderr everything it wrote to standard error
 */
public record ToolResult(List<String> command, int exit, byte[] stdout, String stderr) {

  public ToolResult {
    command = List.copyOf(command);
  }

  /** Standard output as text. */
  public String out() {
    return new String(stdout, UTF_8);
  }

  /** This result, if the exit status was 0; else the test fails showing everything. */
  public ToolResult ok() {
    if (exit != 0) {
      fail("command failed:%n%s", this);
    }
    return this;
  }

  /** For assertion messages: the command, its exit status and both streams (a long stdout cut). */
  @Override
  public String toString() {
    String out = out();
    boolean text = out.chars().allMatch(c -> c >= 0x20 || c == '\n' || c == '\t' || c == '\r');
    out =
        !text ? stdout.length + " bytes" : out.length() > 4000 ? out.substring(0, 4000) + "…" : out;
    return "$ "
        + String.join(" ", command)
        + "\nexit "
        + exit
        + "\nstdout: "
        + out
        + "\nstderr: "
        + stderr;
  }
}
