package org.jverity.cli.serve;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.jverity.cli.command.CliException;
import org.jverity.cli.command.ExitCode;

/**
 * A parsed INI file, the format of nbd-server's config: {@code [section]} headers, then {@code key
 * = value} lines; blank lines and lines starting with {@code #} or {@code ;} are ignored. Keys and
 * section names are case-sensitive; a value keeps inner spaces, loses the spaces around it and one
 * pair of surrounding double quotes ({@code description = " x "}). No inline comments, no
 * continuation lines: a {@code #} inside a value is part of it. A UTF-8 byte order mark at the
 * start is skipped. A key outside a section, a line that is neither, a repeated section or a
 * repeated key is refused, naming the file and line. Immutable.
 */
final class IniFile {
  /**
   * One {@code key = value} line.
   *
   * @param line its line number, from 1
   */
  record Entry(String key, String value, int line) {}

  /**
   * One section, its entries in file order.
   *
   * @param line the line number of its header, from 1
   */
  record Section(String name, int line, Map<String, Entry> entries) {}

  private final String file;
  private final List<Section> sections;

  private IniFile(String file, List<Section> sections) {
    this.file = file;
    this.sections = List.copyOf(sections);
  }

  /** The name used in error messages ({@code file:line: ...}). */
  String file() {
    return file;
  }

  List<Section> sections() {
    return sections;
  }

  /** This file without the entries {@code keys} of the section {@code name}. */
  IniFile without(String name, List<String> keys) {
    List<Section> kept = new ArrayList<>();
    for (Section s : sections) {
      Map<String, Entry> entries = new LinkedHashMap<>(s.entries());
      if (s.name().equals(name)) {
        entries.keySet().removeAll(keys);
      }
      kept.add(new Section(s.name(), s.line(), entries));
    }
    return new IniFile(file, kept);
  }

  /** "FILE:LINE: " for a message about that line. */
  String at(int line) {
    return file + ":" + line + ": ";
  }

  /**
   * Parses {@code text}; {@code file} names it in messages.
   *
   * @throws CliException ({@link ExitCode#INVALID_PARAMETER}) naming the file and line
   */
  static IniFile parse(String file, String text) {
    List<Section> sections = new ArrayList<>();
    Map<String, Integer> seen = new LinkedHashMap<>();
    Section current = null;
    // A UTF-8 byte order mark (Windows editors write one) is not part of the first line, as most
    // INI readers (Python's configparser with utf-8-sig, systemd) take it.
    String body = text.startsWith("\ufeff") ? text.substring(1) : text;
    String[] lines = body.split("\r?\n", -1);
    for (int i = 0; i < lines.length; i++) {
      int n = i + 1;
      String line = lines[i].strip();
      if (line.isEmpty() || line.startsWith("#") || line.startsWith(";")) {
        continue;
      }
      if (line.startsWith("[")) {
        if (!line.endsWith("]")) {
          throw error(file, n, "section header: " + line + " (expected: [name])");
        }
        String name = line.substring(1, line.length() - 1).strip();
        Integer before = seen.putIfAbsent(name, n);
        if (before != null) {
          throw error(file, n, "section [" + name + "]: repeated (first on line " + before + ")");
        }
        current = new Section(name, n, new LinkedHashMap<>());
        sections.add(current);
        continue;
      }
      int eq = line.indexOf('=');
      if (eq < 1) {
        throw error(
            file, n, "line: " + line + " (expected: key = value, [section], or a # comment)");
      }
      String key = line.substring(0, eq).strip();
      if (current == null) {
        throw error(file, n, key + ": outside any section (expected: a [section] header first)");
      }
      String value = unquote(line.substring(eq + 1).strip());
      Entry before = current.entries().putIfAbsent(key, new Entry(key, value, n));
      if (before != null) {
        throw error(
            file,
            n,
            key + ": repeated in [" + current.name() + "] (first on line " + before.line() + ")");
      }
    }
    return new IniFile(file, sections);
  }

  private static String unquote(String value) {
    return value.length() >= 2 && value.startsWith("\"") && value.endsWith("\"")
        ? value.substring(1, value.length() - 1)
        : value;
  }

  private static CliException error(String file, int line, String message) {
    return new CliException(ExitCode.INVALID_PARAMETER, file + ":" + line + ": " + message);
  }
}
