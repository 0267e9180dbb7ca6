package org.jverity.cli.readme;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * The fenced blocks of the README and of {@code docs/}, each with its file, the section it sits in
 * and the line its fence opens on.
 */
final class ReadmeBlocks {
  private ReadmeBlocks() {}

  /**
   * The Markdown files whose examples run, in the order they run: they share one scratch directory,
   * and the docs hold today's README's sections in their old order (issue 28), so each block finds
   * the files the ones before it left. Every {@code docs/*.md} must be listed.
   */
  static final List<String> FILES =
      List.of(
          "README.md",
          "docs/usage.md",
          "docs/fec.md",
          "docs/fsverity.md",
          "docs/serving.md",
          "docs/protocol.md",
          "docs/remote.md",
          "docs/ddi.md",
          "docs/avb.md",
          "docs/library.md",
          "docs/architecture.md",
          "docs/benchmarks.md");

  /**
   * One fenced block: its file (relative to the repository), the heading of the level-2 section it
   * is in (the level-1 title before the first one), its info string ({@code sh}, {@code ini},
   * {@code java} or empty), the line number (1-based) of its first content line, and its content
   * lines.
   */
  record Block(String file, String section, String info, int firstLine, List<String> lines) {
    String text() {
      return String.join("\n", lines);
    }

    /** Where the block is, for a failure message. */
    String where() {
      return file + ":" + firstLine + " (```" + info + ")";
    }

    /** Where its line {@code number} is, for a failure message. */
    String where(int number) {
      return file + ":" + number;
    }
  }

  /** Every block of {@link #FILES} under {@code root}, in order. */
  static List<Block> all(Path root) throws IOException {
    List<Block> blocks = new ArrayList<>();
    for (String file : FILES) {
      blocks.addAll(read(root, file));
    }
    return blocks;
  }

  static List<Block> read(Path root, String file) throws IOException {
    List<String> all = Files.readAllLines(root.resolve(file));
    List<Block> blocks = new ArrayList<>();
    String section = "";
    for (int i = 0; i < all.size(); i++) {
      String line = all.get(i);
      if (line.startsWith("# ") || line.startsWith("## ")) {
        section = line.substring(line.indexOf(' ') + 1).strip();
      }
      if (!line.startsWith("```")) {
        continue;
      }
      String info = line.substring(3).strip();
      int start = i + 1;
      int end = start;
      while (end < all.size() && !all.get(end).startsWith("```")) {
        end++;
      }
      if (end == all.size()) {
        throw new IllegalStateException(file + ":" + (i + 1) + ": a fence that never closes");
      }
      blocks.add(new Block(file, section, info, start + 1, List.copyOf(all.subList(start, end))));
      i = end;
    }
    return blocks;
  }
}
