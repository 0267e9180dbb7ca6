package org.jverity.cli;

import java.util.List;

/**
 * What one run of a command-line tool (jverity in-process, or veritysetup as a process) left
 * behind.
 *
 * @param exitCode the process exit code, or {@link Main#run}'s return value
 * @param stdout everything written to standard output
 * @param stderr everything written to standard error
 */
public record ToolRun(int exitCode, String stdout, String stderr) {

  /** Standard output split into lines, without line terminators. */
  public List<String> stdoutLines() {
    return stdout.lines().toList();
  }

  /** Standard error split into lines, without line terminators. */
  public List<String> stderrLines() {
    return stderr.lines().toList();
  }

  /** The value of a {@code Label:<tab>value} line of a veritysetup-style header, or null. */
  public String headerField(String label) {
    for (String line : stdoutLines()) {
      int tab = line.indexOf('\t');
      if (tab > 0 && line.substring(0, tab).strip().equals(label + ":")) {
        return line.substring(tab + 1);
      }
    }
    return null;
  }

  /** For assertion messages: the exit code and both streams. */
  @Override
  public String toString() {
    return "exit " + exitCode + "\n--- stdout ---\n" + stdout + "--- stderr ---\n" + stderr;
  }
}
