package org.jverity.testkit;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * {@code bin/tools.tsv}, packaged with the kit: each real tool a test runs and the Debian package
 * that has it. {@code bin/test} reads the same file to install what is missing, so a tool and its
 * package are named in one place.
 */
final class ToolTable {
  private static final Map<String, String> PACKAGES = load();

  private ToolTable() {}

  /** The Debian package of {@code tool}; a tool not in the table is a mistake in the test. */
  static String debianPackage(String tool) {
    String p = PACKAGES.get(tool);
    if (p == null) {
      throw new IllegalArgumentException(
          tool + " is not in bin/tools.tsv: add it with its Debian package");
    }
    return p;
  }

  private static Map<String, String> load() {
    Map<String, String> table = new LinkedHashMap<>();
    try (InputStream in = ToolTable.class.getResourceAsStream("tools.tsv")) {
      if (in == null) {
        throw new IllegalStateException(
            "tools.tsv is not on the class path (jverity-testkit packages bin/tools.tsv)");
      }
      BufferedReader r = new BufferedReader(new InputStreamReader(in, StandardCharsets.UTF_8));
      for (String line; (line = r.readLine()) != null; ) {
        if (line.isBlank() || line.startsWith("#")) {
          continue;
        }
        String[] f = line.split("\t");
        if (f.length != 2) {
          throw new IllegalStateException("tools.tsv: expected 'tool<TAB>package': " + line);
        }
        table.put(f[0], f[1]);
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return Map.copyOf(table);
  }
}
