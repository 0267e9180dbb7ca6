package org.jverity.remote.s3;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * The INI dialect of {@code ~/.aws/credentials} and {@code ~/.aws/config}: {@code [section]}
 * headers, {@code key = value} lines, {@code #} and {@code ;} comment lines, and a key with no
 * value opening a sub-section of indented lines ({@code s3 =} then {@code addressing_style =
 * path}), whose keys are kept as {@code s3.addressing_style}. Key names are lower-cased.
 */
final class AwsIniFile {
  private AwsIniFile() {}

  /** Sections by name, each its keys in file order; empty when the file does not exist. */
  static Map<String, Map<String, String>> read(Path file) throws IOException {
    try {
      return parse(Files.readAllLines(file));
    } catch (NoSuchFileException e) {
      return Map.of();
    }
  }

  static Map<String, Map<String, String>> parse(List<String> lines) {
    Map<String, Map<String, String>> sections = new LinkedHashMap<>();
    Map<String, String> section = null;
    String parent = null; // the key whose sub-section the indented lines below belong to
    for (String line : lines) {
      String text = line.strip();
      if (text.isEmpty() || text.startsWith("#") || text.startsWith(";")) {
        continue;
      }
      if (text.startsWith("[") && text.endsWith("]")) {
        section =
            sections.computeIfAbsent(
                text.substring(1, text.length() - 1).strip(), k -> new LinkedHashMap<>());
        parent = null;
        continue;
      }
      int eq = text.indexOf('=');
      if (section == null || eq < 0) {
        continue; // botocore refuses such a file; a signer has no better answer than to skip it
      }
      String key = text.substring(0, eq).strip().toLowerCase(Locale.ROOT);
      String value = text.substring(eq + 1).strip();
      boolean indented = Character.isWhitespace(line.charAt(0));
      if (indented && parent != null) {
        section.put(parent + "." + key, value);
      } else if (value.isEmpty()) {
        parent = key;
      } else {
        section.put(key, value);
        parent = null;
      }
    }
    return sections;
  }
}
