package org.jverity.cli;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import org.jverity.testkit.Tool;

/**
 * The real NBD clients as the CLI tests run them, through the test kit's {@link Tool}: their result
 * a {@link ToolRun} like jverity's own, and {@link Jverity#DETAILED} in their environment, since a
 * client may start jverity itself ({@code nbdsh}'s {@code connect_command}).
 */
public final class Clients {
  private Clients() {}

  /** Runs a client to the end, whatever its exit status. */
  public static ToolRun run(String... command) {
    var r = tool(command[0]).run(Arrays.asList(command).subList(1, command.length));
    return new ToolRun(r.exit(), r.out(), r.stderr());
  }

  /** Starts a client; the caller drains its output and waits for it. */
  public static Process start(String... command) {
    return tool(command[0]).start(Arrays.copyOfRange(command, 1, command.length));
  }

  /** A list of strings, for building command lines. */
  public static List<String> list(List<String> head, String... tail) {
    List<String> all = new ArrayList<>(head);
    all.addAll(List.of(tail));
    return all;
  }

  private static Tool tool(String name) {
    Tool t = Tool.of(name);
    for (Map.Entry<String, String> e : Jverity.DETAILED.entrySet()) {
      t = t.env(e.getKey(), e.getValue());
    }
    return t;
  }
}
