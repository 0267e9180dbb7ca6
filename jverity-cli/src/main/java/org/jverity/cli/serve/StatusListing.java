package org.jverity.cli.serve;

import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.stream.Stream;
import org.jverity.cli.command.ExitCode;
import org.jverity.cli.command.Io;
import org.jverity.server.ServerException;
import org.jverity.server.ServerLog;
import org.jverity.server.status.RuntimeDir;
import org.jverity.server.status.StatusSocket;

/**
 * {@code jverity status} without a name: every export whose status socket is in the runtime
 * directory, one line each (name, state, URI), sorted by name, or with {@code --json} an array of
 * objects. A socket file nobody listens on was left by a server that died: it is removed and not
 * listed (a new server would replace it anyway). A server that takes the connection but does not
 * answer in time is listed as {@code not answering}; one running as another user is refused with a
 * line on stderr, not listed, and the exit code is {@link ExitCode#IO_ERROR}. Stateless.
 */
final class StatusListing {
  private StatusListing() {}

  /** How long one server may take to answer. */
  private static final Duration TIMEOUT = Duration.ofSeconds(5);

  /** How long a socket nobody listens on gets before it is taken for stale. */
  private static final Duration RECHECK = Duration.ofMillis(100);

  /** Prints the listing of {@code dir}; returns the exit code. */
  static int print(Path dir, boolean json, Io io) throws IOException {
    List<Map<String, Object>> exports = new ArrayList<>();
    int code = ExitCode.OK;
    if (RuntimeDir.existing(dir)) {
      List<Path> sockets;
      try (Stream<Path> files = Files.list(dir)) {
        sockets = files.filter(f -> RuntimeDir.name(f) != null).sorted().toList();
      }
      for (Path socket : sockets) {
        String name = RuntimeDir.name(socket);
        StatusSocket.Reply reply;
        try {
          reply = StatusSocket.ask(socket, StatusSocket.REQUEST, TIMEOUT);
          if (!reply.listening()) { // once more: a server binds, then listens, a moment later
            Thread.sleep(RECHECK.toMillis());
            reply = StatusSocket.ask(socket, StatusSocket.REQUEST, TIMEOUT);
          }
        } catch (ServerException foreign) { // PeerCheck: a server of another user
          io.err().println("jverity: " + foreign.getMessage());
          code = ExitCode.IO_ERROR;
          continue;
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
          break;
        }
        if (!reply.listening()) {
          if (isSocket(socket)) {
            Files.deleteIfExists(socket); // its server died
          }
        } else {
          exports.add(
              object(
                  name, reply.answered() ? rows(reply.text()) : Map.of("status", "not answering")));
        }
      }
    }
    PrintWriter out = io.out();
    if (json) {
      io.result(
          new LinkedHashMap<>(Map.of("exports", exports))); // with ok and exitCode, as every --json
    } else {
      int width = exports.stream().mapToInt(e -> display(e).length()).max().orElse(0);
      int stateWidth =
          exports.stream().mapToInt(e -> e.get("status").toString().length()).max().orElse(0);
      for (Map<String, Object> e : exports) {
        Object uri = e.get("uri");
        out.println(
            String.format(
                    Locale.ROOT,
                    "%-" + width + "s  %-" + stateWidth + "s  %s",
                    display(e),
                    e.get("status"),
                    uri == null ? "-" : uri)
                .stripTrailing());
      }
    }
    out.flush();
    return code;
  }

  private static boolean isSocket(Path file) {
    try {
      return ((Integer) Files.getAttribute(file, "unix:mode", LinkOption.NOFOLLOW_LINKS) & S_IFMT)
          == S_IFSOCK;
    } catch (IOException | UnsupportedOperationException e) {
      return false; // not known to be one: left alone
    }
  }

  private static final int S_IFMT = 0170000;
  private static final int S_IFSOCK = 0140000;

  private static String display(Map<String, Object> export) {
    return ServerLog.display((String) export.get("name"));
  }

  /** One export as the listing shows it: name, status, uri, connections (those the report has). */
  static Map<String, Object> object(String name, Map<String, String> rows) {
    Map<String, Object> o = new LinkedHashMap<>();
    o.put("name", name);
    o.put("status", rows.getOrDefault("status", "unknown"));
    o.put("uri", rows.get("uri"));
    String connections = rows.get("connections");
    if (connections != null && connections.matches("[0-9]{1,9}")) {
      o.put("connections", Integer.parseInt(connections));
    }
    return o;
  }

  /** The {@code " label: value"} rows of a status report, by label (the first of each). */
  static Map<String, String> rows(String report) {
    Map<String, String> rows = new LinkedHashMap<>();
    for (String line : report.split("\n")) {
      int colon = line.indexOf(':');
      if (line.startsWith("  ") && colon > 2) {
        rows.putIfAbsent(line.substring(2, colon), line.substring(colon + 1).strip());
      }
    }
    return rows;
  }
}
