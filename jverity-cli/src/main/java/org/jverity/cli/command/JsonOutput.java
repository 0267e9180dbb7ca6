package org.jverity.cli.command;

import java.io.PrintWriter;
import java.io.Writer;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.jverity.text.Json;

/**
 * {@code --json}'s promise, kept in one place: a command that reports under {@code --json} ends
 * with one JSON object on stdout, {@code "ok"} and {@code "exitCode"} first, whatever happened. The
 * command hands over its result ({@link Io#result}); once the exit code is final (after any mapping
 * to veritysetup's codes), {@link #finish} prints it with those two fields, and {@code "error"}
 * when it failed. A command that failed with no result (a usage error, a missing file, a server
 * that stopped) gets {@code {"ok":false,"exitCode":N,"error":"..."}} on one line: the error is the
 * last {@code jverity: } line it wrote on stderr, without the prefix (stderr still has it). Asked
 * for when {@code --json} is among the options, looked for before parsing so that a command line
 * that does not parse gets its object too. One per command line.
 */
public final class JsonOutput {
  private static final String PREFIX = "jverity: ";
  private static final int MAX_LINE = 4096; // chars of a stderr line kept for the error

  private final PrintWriter out;
  private final PrintWriter err;
  private final StringBuilder line = new StringBuilder(); // the stderr line being written
  private String lastError; // the last "jverity: " line, without the prefix
  private String firstLine; // the first other line, for a failure that said no "jverity: " line
  private Map<String, Object> result;

  private JsonOutput(PrintWriter out, PrintWriter err) {
    this.out = out;
    this.err = new PrintWriter(new Tee(err));
  }

  /** The JSON output of a command line that asks for it, else null. */
  public static JsonOutput of(List<String> args, PrintWriter out, PrintWriter err) {
    for (String a : args) {
      if (a.equals("--")) {
        return null;
      }
      if (a.equals("--json")) {
        return new JsonOutput(out, err);
      }
    }
    return null;
  }

  /** Where the command writes its messages: stderr, read on the way for the error. */
  public PrintWriter err() {
    return err;
  }

  /**
   * Holds the command's result, printed by {@link #finish}; an "ok" or "exitCode" in it is
   * replaced.
   */
  void result(Map<String, Object> fields) {
    result = fields;
  }

  /**
   * Prints the result (or the failure) for the exit code the process ends with; returns that code.
   */
  public int finish(int exitCode) {
    err.flush();
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("ok", exitCode == ExitCode.OK);
    m.put("exitCode", exitCode);
    if (exitCode != ExitCode.OK) {
      m.put("error", error(exitCode));
    }
    if (result != null) {
      result.forEach(m::putIfAbsent);
      out.print(Json.write(m));
    } else if (exitCode != ExitCode.OK) {
      out.print(Json.line(m)); // one line: it may end a stream of events (open, serve)
    }
    out.flush();
    return exitCode;
  }

  private synchronized String error(int exitCode) {
    if (!line.isEmpty()) {
      endLine();
    }
    return lastError != null
        ? lastError
        : firstLine != null ? firstLine : ExitCode.meaning(exitCode);
  }

  private synchronized void take(char c) {
    if (c == '\n') {
      endLine();
    } else if (line.length() < MAX_LINE) {
      line.append(c);
    }
  }

  private void endLine() {
    String l = line.toString();
    line.setLength(0);
    if (l.startsWith(PREFIX)) {
      lastError = l.substring(PREFIX.length());
    } else if (firstLine == null && !l.isBlank() && !l.startsWith("# ")) { // "# ": a --debug line
      firstLine = l;
    }
  }

  /** Passes everything to stderr, keeping its lines for {@link #error}. */
  private final class Tee extends Writer {
    private final PrintWriter to;

    Tee(PrintWriter to) {
      this.to = to;
    }

    @Override
    public void write(char[] chars, int off, int len) {
      to.write(chars, off, len);
      for (int i = off; i < off + len; i++) {
        take(chars[i]);
      }
    }

    @Override
    public void flush() {
      to.flush();
    }

    @Override
    public void close() {
      to.flush(); // the caller's stream: closing it is the caller's
    }
  }
}
