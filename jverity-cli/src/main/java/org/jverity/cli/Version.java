package org.jverity.cli;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;

/**
 * jverity's version and the commit it was built from, written at build time into the resource
 * {@code jverity-version.txt} (filtered: the Maven project version on the first line, the property
 * {@code jverity.commit} on the second, which bin/jverity and bin/release set to git's short hash).
 * Read from the resource so that tests running from classes see it too, and so that a source-tree
 * build and a release built from the same commit say the same.
 */
final class Version {
  private Version() {}

  static final String RESOURCE = "/org/jverity/cli/jverity-version.txt";

  /**
   * The version and commit, e.g. "0.1.0-SNAPSHOT (commit 1a2b3c4)", or "0.1.0-SNAPSHOT (unknown
   * commit)" when built outside a git checkout; "(development build)" when the resource is missing.
   */
  static String get() {
    String[] lines;
    try (InputStream in = Version.class.getResourceAsStream(RESOURCE)) {
      lines =
          in == null
              ? new String[0]
              : new String(in.readAllBytes(), StandardCharsets.UTF_8).split("\n");
    } catch (IOException e) {
      lines = new String[0];
    }
    String version = lines.length > 0 ? lines[0].strip() : "";
    if (version.isEmpty() || version.startsWith("${")) {
      return "(development build)";
    }
    String commit = lines.length > 1 ? lines[1].strip() : "";
    return version
        + (commit.isEmpty() || commit.startsWith("${")
            ? " (unknown commit)"
            : " (commit " + commit + ")");
  }
}
