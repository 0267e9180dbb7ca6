package org.jverity.cli.readme;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/** The fenced blocks of a Markdown file, each with the line its fence opens on. */
final class ReadmeBlocks {
  private ReadmeBlocks() {}

  /**
   * One fenced block: its info string ({@code sh}, {@code ini}, {@code java} or empty), the line
   * number (1-based) of its first content line, and its content lines.
   */
  record Block(String info, int firstLine, List<String> lines) {
    String text() {
      return String.join("\n", lines);
    }

    /** Where the block is, for a failure message. */
    String where() {
      return "README.md:" + firstLine + " (```" + info + ")";
    }
  }

  static List<Block> read(Path markdown) throws IOException {
    List<String> all = Files.readAllLines(markdown);
    List<Block> blocks = new ArrayList<>();
    for (int i = 0; i < all.size(); i++) {
      if (!all.get(i).startsWith("```")) {
        continue;
      }
      String info = all.get(i).substring(3).strip();
      int start = i + 1;
      int end = start;
      while (end < all.size() && !all.get(end).startsWith("```")) {
        end++;
      }
      if (end == all.size()) {
        throw new IllegalStateException("README.md:" + (i + 1) + ": a fence that never closes");
      }
      blocks.add(new Block(info, start + 1, List.copyOf(all.subList(start, end))));
      i = end;
    }
    return blocks;
  }
}
