package org.jverity.cli;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;

/**
 * jverity's version: the Maven project version, written at build time into the resource {@code
 * jverity-version.txt} (filtered), which the jar's manifest also carries as Implementation-Version.
 * Read from the resource so that tests running from classes see it too.
 */
final class Version {
  private Version() {}

  static final String RESOURCE = "/org/jverity/cli/jverity-version.txt";

  /** The version, e.g. "0.1.0-SNAPSHOT", or "(development build)" when the resource is missing. */
  static String get() {
    try (InputStream in = Version.class.getResourceAsStream(RESOURCE)) {
      String v = in == null ? "" : new String(in.readAllBytes(), StandardCharsets.UTF_8).strip();
      return v.isEmpty() || v.startsWith("${") ? "(development build)" : v;
    } catch (IOException e) {
      return "(development build)";
    }
  }
}
