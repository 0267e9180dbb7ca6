package org.jverity.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import org.jverity.testkit.Tool;
import org.jverity.testkit.ToolResult;
import org.jverity.text.Json;

/**
 * Checks that jverity's JSON is JSON: Python's json module, an oracle jverity did not write, must
 * read it as exactly one object (no text after it, no key twice, no NaN); then jverity's own parser
 * gives the values to compare. A missing python3 fails, naming its package.
 */
public final class JsonCheck {
  private JsonCheck() {}

  private static final Tool PYTHON = Tool.of("python3");
  private static final String STRICT =
      """
      import json, sys
      def pairs(p):
          keys = [k for k, _ in p]
          if len(keys) != len(set(keys)): raise ValueError("a key twice")
          return dict(p)
      def constant(c): raise ValueError("not JSON: " + c)
      v = json.loads(sys.stdin.read(), object_pairs_hook=pairs, parse_constant=constant)
      if not isinstance(v, dict): raise ValueError("not an object")
      """;

  /** {@code text} as one JSON object, after Python's json module accepted it as exactly that. */
  @SuppressWarnings("unchecked")
  public static Map<String, Object> object(String text) throws Exception {
    ToolResult python = PYTHON.input(text.getBytes(StandardCharsets.UTF_8)).run("-c", STRICT);
    assertThat(python.exit())
        .as("python's json module on:\n%s\nsaid: %s", text, python.out() + python.stderr())
        .isZero();
    Object v = Json.parse(text);
    assertThat(v).isInstanceOf(Map.class);
    return (Map<String, Object>) v;
  }

  /** A run's stdout as its one JSON object. */
  public static Map<String, Object> stdout(ToolRun r) throws Exception {
    assertThat(r.stdout()).as("%s", r).isNotEmpty();
    return object(r.stdout());
  }

  /**
   * A failed run under --json: stdout is exactly one object on one line, {@code ok} false, the exit
   * code the run ended with, and the error its stderr line says (without "jverity: ").
   */
  public static Map<String, Object> failure(ToolRun r) throws Exception {
    assertThat(r.exitCode()).as("%s", r).isNotZero();
    assertThat(r.stdoutLines()).as("%s", r).hasSize(1);
    Map<String, Object> m = object(r.stdout());
    assertThat(m)
        .as("%s", r)
        .containsEntry("ok", false)
        .containsEntry("exitCode", (long) r.exitCode());
    List<String> errors = r.stderrLines().stream().filter(l -> l.startsWith("jverity: ")).toList();
    assertThat(errors).as("%s", r).isNotEmpty();
    assertThat(m.get("error"))
        .as("%s", r)
        .isEqualTo(errors.getLast().substring("jverity: ".length()));
    return m;
  }
}
