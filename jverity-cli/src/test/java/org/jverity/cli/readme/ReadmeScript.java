package org.jverity.cli.readme;

import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.jverity.cli.readme.ReadmeBlocks.Block;
import org.jverity.cli.readme.ReadmeExamples.Entry;
import org.jverity.cli.readme.ReadmeExamples.Line;
import org.jverity.cli.readme.ReadmeExamples.Substitution;

/**
 * The bash script that runs one README or docs block as written: each command line after {@link
 * ReadmeExamples#TEXT}, its exit status and its stated output checked, servers started in the
 * background and stopped (SIGTERM, exit 0 expected) when the block ends.
 */
final class ReadmeScript {
  /** Marks a shell variable in substituted text, rendered for where it lands. */
  private static final char OPEN = '\u0001';

  private static final char CLOSE = '\u0002';

  private static final Pattern VARIABLE = Pattern.compile(OPEN + "(\\w+)" + CLOSE);
  private static final Pattern OPTIONAL = Pattern.compile("\\s\\[(--[^\\]\\s]+)\\]");
  private static final Pattern PRINTS = Pattern.compile("^prints (\\S+)");
  private static final Pattern SERVER =
      Pattern.compile(
          "^(bin/jverity (open|serve) |"
              + OPEN
              + "PWD"
              + CLOSE
              + "/bin/jverity serve |systemd-socket-activate )");

  private final StringBuilder script = new StringBuilder();
  private final Block block;
  private int step;

  private ReadmeScript(Block block) {
    this.block = block;
  }

  static String of(Block block, Entry entry) {
    ReadmeScript s = new ReadmeScript(block);
    s.script.append(". \"$README_PRELUDE\"\n");
    s.script.append("finish() {\n").append(entry.cleanup()).append("\n:\n");
    s.script.append("stop_servers; kill $(jobs -p) 2> /dev/null; wait\n}\n");
    s.script.append("where='").append(block.where()).append(", the setup'\n");
    s.script.append(entry.setup()).append('\n');
    switch (entry.kind()) {
      case SHELL -> s.lines(block, block.lines());
      case CONFIG -> {
        s.file(entry.file(), block.text());
        for (String then : entry.then()) {
          s.line(block.firstLine(), then);
        }
      }
      case TRANSCRIPT -> s.transcript(block);
      case OUTPUT -> {
        s.line(block.firstLine(), entry.then().get(0));
        for (String printed : block.lines()) {
          int over = printed.indexOf(" over ");
          String start = over < 0 ? printed : printed.substring(0, over + " over ".length());
          s.script.append("grep -qF -- ").append(quoted(start)).append(" \"$err\" || fail ");
          s.script.append(quoted("no line '" + start + "' on stderr")).append('\n');
        }
      }
      case UNIT -> {
        for (int i = 0; i < block.lines().size(); i++) {
          if (block.lines().get(i).startsWith("ExecStart=")) {
            s.line(block.firstLine() + i, block.lines().get(i).substring("ExecStart=".length()));
          }
        }
      }
      case JAVA -> {
        s.file(
            entry.file(),
            "import org.jverity.image.*;\nimport org.jverity.verify.*;\n"
                + "public class ReadmeLibraryExample {\n"
                + "  public static void main(String[] args) throws Exception {\n"
                + block.text()
                + "\n  }\n}");
        s.run(block.firstLine(), "\"$JAVA\" -cp \"$TEST_CLASSPATH\" " + entry.file(), "", false);
      }
      case NOT_RUN, RELEASE -> throw new IllegalArgumentException(block.where() + ": not run");
    }
    s.script.append("finish\n[ \"$failures\" = 0 ]\n");
    return s.script.toString();
  }

  /** The block's command lines, a backslash joining a line to the next; comments skipped. */
  private void lines(Block block, List<String> lines) {
    for (int i = 0; i < lines.size(); i++) {
      int number = block.firstLine() + i;
      StringBuilder logical = new StringBuilder(lines.get(i));
      while (logical.toString().endsWith("\\") && i + 1 < lines.size()) {
        logical.setLength(logical.length() - 1);
        logical.append(' ').append(lines.get(++i).strip());
      }
      String text = logical.toString().strip();
      if (!text.isEmpty() && !text.startsWith("#")) {
        line(number, text);
      }
    }
  }

  /** One README line: {@code [--opt]} runs it without and with the option. */
  private void line(int number, String text) {
    Matcher optional = OPTIONAL.matcher(text);
    if (optional.find()) {
      line(number, optional.replaceFirst(""));
      line(number, optional.replaceFirst(" " + Matcher.quoteReplacement(optional.group(1))));
      return;
    }
    String instead = null;
    String check = null;
    String ready = null;
    for (Line rule : ReadmeExamples.LINES) {
      if (text.contains(rule.marker())) {
        instead = rule.instead() != null ? rule.instead() : instead;
        check = rule.check() != null ? rule.check() : check;
        ready = rule.ready() != null ? rule.ready() : ready;
      }
    }
    if (instead != null && instead.isEmpty()) {
      script.append("# ").append(block.where(number)).append(": not run: ").append(text);
      script.append('\n');
      return;
    }
    String substituted = substitute(instead != null ? instead : text);
    int hash = commentStart(substituted);
    String code = (hash < 0 ? substituted : substituted.substring(0, hash)).strip();
    String comment = hash < 0 ? "" : substituted.substring(hash + 1).strip();
    boolean server =
        SERVER.matcher(code).find()
            && !code.contains("--run")
            && !code.contains("--stdin")
            && !code.endsWith("&");
    script.append("where='").append(block.where(number)).append(": ");
    script.append(text.replace("'", "'\\''")).append("'\n");
    computeVariables(substituted);
    run(number, code, ready == null ? "" : ready, server);
    Matcher prints = PRINTS.matcher(comment);
    if (prints.find()) {
      script.append("expect_line ").append(quoted(prints.group(1))).append('\n');
    } else if (comment.startsWith("nbd")) {
      script.append("expect_line ").append(quoted(comment.split("\\s")[0])).append('\n');
    } else if (comment.startsWith("silent on success")) {
      script.append("expect_silent\n");
    }
    if (check != null) {
      script.append(check).append('\n');
    }
  }

  private void run(int number, String code, String ready, boolean server) {
    step++;
    script.append("out=o/").append(number).append('.').append(step).append(".out; ");
    script.append("err=o/").append(number).append('.').append(step).append(".err\n");
    String rendered = shell(code);
    if (server) {
      // A server line is one the reader runs instead of the one before: that one is stopped.
      script.append("stop_servers\n").append(rendered).append(" > \"$out\" 2> \"$err\" &\n");
      script.append("started $! ").append(quoted(ready)).append('\n');
    } else {
      script.append("{ ").append(rendered).append("\n} > \"$out\" 2> \"$err\"; expect_ok $?\n");
    }
  }

  private void transcript(Block block) {
    List<String> lines = block.lines();
    String command = lines.get(0);
    if (!command.startsWith("$ ")) {
      throw new IllegalArgumentException(block.where() + ": a transcript starts with '$ '");
    }
    line(block.firstLine(), command.substring(2));
    String expected = substitute(String.join("\n", lines.subList(1, lines.size())));
    computeVariables(expected);
    script.append("expect_transcript <<EOF_README\n").append(heredoc(expected));
    script.append("\nEOF_README\n");
  }

  private void file(String name, String text) {
    String substituted = substitute(text);
    script.append("where='").append(name).append("'\n");
    computeVariables(substituted);
    script.append("cat > ").append(name).append(" <<EOF_README\n").append(heredoc(substituted));
    script.append("\nEOF_README\n");
  }

  private void computeVariables(String substituted) {
    Set<String> names = new LinkedHashSet<>();
    Matcher m = VARIABLE.matcher(substituted);
    while (m.find()) {
      names.add(m.group(1));
    }
    for (String name : names) {
      String command = ReadmeExamples.COMPUTED.get(name);
      if (command != null) {
        script.append(name).append("=$(").append(command).append(")\n");
      }
    }
  }

  static String substitute(String text) {
    String result = text;
    for (Substitution s : ReadmeExamples.TEXT) {
      String replacement =
          s.replacement().replaceAll("\\{([\\w$]+)}", OPEN + "$1" + CLOSE).replace("$", "\\$");
      replacement = replacement.replaceAll("\\\\\\$(\\d)", "\\$$1");
      result = s.pattern().matcher(result).replaceAll(replacement);
    }
    return result;
  }

  /** Shell code: a variable is {@code ${NAME}}, or {@code '"${NAME}"'} inside single quotes. */
  private static String shell(String code) {
    StringBuilder out = new StringBuilder();
    boolean single = false;
    boolean dbl = false;
    for (int i = 0; i < code.length(); i++) {
      char c = code.charAt(i);
      if (c == OPEN) {
        int end = code.indexOf(CLOSE, i);
        String name = code.substring(i + 1, end);
        out.append(single ? "'\"${" + name + "}\"'" : "${" + name + "}");
        i = end;
        continue;
      }
      if (c == '\'' && !dbl) {
        single = !single;
      } else if (c == '"' && !single) {
        dbl = !dbl;
      }
      out.append(c);
    }
    return out.toString();
  }

  /** Where a shell comment starts: a '#' after a blank, outside quotes; -1 if none. */
  private static int commentStart(String code) {
    boolean single = false;
    boolean dbl = false;
    for (int i = 0; i < code.length(); i++) {
      char c = code.charAt(i);
      if (c == '\'' && !dbl) {
        single = !single;
      } else if (c == '"' && !single) {
        dbl = !dbl;
      } else if (c == '#'
          && !single
          && !dbl
          && i > 0
          && Character.isWhitespace(code.charAt(i - 1))) {
        return i;
      }
    }
    return -1;
  }

  /** A double-quoted shell word for {@code text}, its variables expanded. */
  private static String quoted(String text) {
    return '"' + escape(text, "\\\"$`") + '"';
  }

  /** The body of an unquoted here-document: only variables expand. */
  private static String heredoc(String text) {
    return escape(text, "\\$`");
  }

  private static String escape(String text, String special) {
    StringBuilder out = new StringBuilder();
    for (int i = 0; i < text.length(); i++) {
      char c = text.charAt(i);
      if (c == OPEN) {
        int end = text.indexOf(CLOSE, i);
        out.append("${").append(text, i + 1, end).append('}');
        i = end;
      } else {
        if (special.indexOf(c) >= 0) {
          out.append('\\');
        }
        out.append(c);
      }
    }
    return out.toString();
  }
}
