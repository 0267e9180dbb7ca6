package org.jverity.cli.serve;

import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import org.jverity.cli.command.CliException;
import org.jverity.cli.command.Command;
import org.jverity.cli.command.ExitCode;
import org.jverity.cli.command.Io;
import org.jverity.cli.syntax.FileName;
import org.jverity.cli.syntax.Syntax;
import org.jverity.server.ServerLog;
import org.jverity.server.status.RuntimeDir;
import org.jverity.server.status.StatusSocket;
import org.jverity.text.Json;

/**
 * {@code jverity status NAME}: like {@code veritysetup status}, asks the running {@code open} or
 * {@code serve} that serves export NAME, through its status socket, and prints its report. Without
 * NAME, lists every export the runtime directory knows ({@link StatusListing}).
 */
public final class StatusCommand implements Command {
  private static final Duration TIMEOUT = Duration.ofSeconds(10);

  String name; // null: list them all
  Path runtimeDir;
  boolean json;

  public static final Syntax<StatusCommand> SYNTAX =
      Syntax.command(
              "status",
              "Show the status of export NAME of a running open or serve, like veritysetup status:"
                  + " verified or corrupted, the tree's parameters, devices, root hash, counts. Exit 4 (13 with"
                  + " --detailed-exit-codes) when no server serves NAME, as veritysetup for an inactive device."
                  + " Without NAME, one line per export served by your servers: name, state (verified, corrupted,"
                  + " ...) and URI. Exit 4 when the runtime directory or a server is not your own.",
              StatusCommand::new)
          .optionalParameter("NAME", "Export name (none: list every export).", (c, v) -> c.name = v)
          .option(
              "--runtime-dir",
              "DIR",
              "Where servers put their status sockets (default " + RuntimeDir.DEFAULTS + ").",
              (c, v) -> c.runtimeDir = FileName.parse(v))
          .flag(
              "--json",
              "Print NAME's status as one JSON object (the same facts; sizes in bytes), or the listing as"
                  + " {\"exports\":[{name, status, uri, connections}, ...]}.",
              c -> c.json = true)
          .example(
              "Show the state of export disk of a running server, as veritysetup status shows a device's:",
              "jverity status disk")
          .example("Every export of every running server, as JSON:", "jverity status --json");

  @Override
  public int run(Io io) throws IOException {
    Path dir = RuntimeDir.resolve(runtimeDir);
    if (name == null) {
      return StatusListing.print(dir, json, io);
    }
    Path socket = RuntimeDir.socket(dir, name);
    String report =
        RuntimeDir.existing(dir)
            ? StatusSocket.query(
                socket, json ? StatusSocket.JSON_REQUEST : StatusSocket.REQUEST, TIMEOUT)
            : null;
    if (report == null) {
      throw new CliException(
          ExitCode.INACTIVE,
          ServerLog.display(name) + " is inactive (no server answers at " + socket + ")");
    }
    if (json) {
      io.result(exportJson(report, socket));
      return ExitCode.OK;
    }
    var out = io.out();
    out.print(report);
    out.flush();
    return ExitCode.OK;
  }

  /** The serving process's JSON object for one export ({@link StatusReport#json}). */
  @SuppressWarnings("unchecked")
  static Map<String, Object> exportJson(String reply, Path socket) {
    try {
      if (Json.parse(reply) instanceof Map<?, ?> m) {
        return (Map<String, Object>) m;
      }
    } catch (IllegalArgumentException e) {
      // said below
    }
    throw new CliException(
        ExitCode.IO_ERROR,
        "the server at "
            + socket
            + " does not answer status in JSON"
            + " (a jverity older than --json?)");
  }
}
