package org.jverity.cli.syntax;

import java.util.ArrayList;
import java.util.List;

/**
 * Help texts from a {@link Syntax}, laid out as veritysetup's (popt's): 80 columns, descriptions in
 * a second column. What a help ends with (the command's exit codes) is the caller's: the parser
 * knows nothing of them.
 */
public final class Usage {
  private Usage() {}

  /** Text width of every help line. */
  public static final int WIDTH = 80;

  /** Where descriptions start, unless the names are wider. */
  private static final int COLUMN = 32;

  /**
   * {@code jverity CMD --help}: usage line, summary, parameters, the command's options, the global
   * ones.
   */
  /** What the help of a command that takes abbreviations says of them. */
  static final String ABBREVIATED =
      "A long option may be shortened to a prefix of its name, as fsverity's getopt_long and"
          + " avbtool's argparse take them: the prefix picks the one option of the tool's that"
          + " has it, else the one of jverity's own; a prefix several share is refused.";

  public static String help(Syntax<?> command, Syntax<?> global, String exitCodes) {
    StringBuilder b = new StringBuilder(brief(command));
    b.append('\n');
    wrap(b, command.summary(), 0, 0);
    if (!command.parameters().isEmpty()) {
      b.append("\nParameters:\n");
      for (Syntax.Parameter<?> p : command.parameters()) {
        row(b, "  " + p.label() + (p.many() ? "..." : ""), p.help());
      }
    }
    if (!command.options().isEmpty()) {
      b.append("\nOptions:\n");
      options(b, command);
      if (command.abbreviated()) {
        b.append('\n');
        wrap(b, ABBREVIATED, 0, 0);
      }
    }
    b.append("\nGlobal options (before or after the command):\n");
    options(b, global);
    b.append('\n');
    wrap(b, exitCodes, 0, 0);
    return b.toString();
  }

  /**
   * {@code jverity --help}: the commands with their summaries, the global options, then {@code
   * exitCodes} (which codes the commands give).
   */
  public static String help(
      String summary, List<? extends Syntax<?>> commands, Syntax<?> global, String exitCodes) {
    StringBuilder b = new StringBuilder("Usage: jverity [OPTION...] COMMAND [ARGUMENTS]\n");
    wrap(b, summary, 0, 0);
    b.append('\n').append(commandList(commands));
    b.append("\nGlobal options (before or after the command):\n");
    options(b, global);
    b.append('\n');
    wrap(b, exitCodes, 0, 0);
    b.append("\nSee 'jverity COMMAND --help' for the options of each command.\n");
    return b.toString();
  }

  /** The commands, one a row, with their summaries. */
  public static String commandList(List<? extends Syntax<?>> commands) {
    StringBuilder b = new StringBuilder("Commands:\n");
    for (Syntax<?> c : commands) {
      b.append(String.format("  %-11s ", c.name()));
      wrap(b, c.summary(), 14, 14);
    }
    return b.toString();
  }

  /**
   * {@code jverity avb --help}: a command made of subcommands, each with its summary, and how to
   * get a subcommand's help. {@code spelling}: what the list's heading says of the subcommands'
   * options (avb's are avbtool's), or null.
   */
  public static String subcommandHelp(
      Syntax<?> command,
      List<? extends Syntax<?>> subcommands,
      String spelling,
      Syntax<?> global,
      String exitCodes) {
    StringBuilder b = new StringBuilder(subcommandUsage(command));
    wrap(b, command.summary(), 0, 0);
    b.append('\n');
    wrap(b, spelling == null ? "Subcommands:" : "Subcommands (" + spelling + "):", 0, 0);
    for (Syntax<?> c : subcommands) {
      String name = c.name().substring(command.name().length() + 1);
      b.append("  ").append(name).append('\n').append("      ");
      wrap(b, c.summary(), 6, 6);
    }
    b.append("\nGlobal options (before or after the command):\n");
    options(b, global);
    b.append("\nSee 'jverity ")
        .append(command.name())
        .append(" SUBCOMMAND --help' for the options of each subcommand.\n\n");
    wrap(b, exitCodes, 0, 0);
    return b.toString();
  }

  /** {@code jverity avb --usage}. */
  public static String subcommandUsage(Syntax<?> command) {
    return "Usage: jverity " + command.name() + " SUBCOMMAND [OPTION...]\n";
  }

  /** {@code --usage}: one usage line, wrapped, naming every option, as popt's. */
  public static String brief(Syntax<?> command) {
    List<String> words = new ArrayList<>();
    for (Syntax.Option<?> o : command.options()) {
      String names = String.join("|", shown(o));
      String w = names + (o.takesValue() ? "=" + o.label() : "");
      words.add(o.required() ? w : "[" + w + "]");
    }
    for (Syntax.Parameter<?> p : command.parameters()) {
      String w = p.label() + (p.many() ? "..." : "");
      words.add(p.min() == 0 ? "[" + w + "]" : w);
    }
    StringBuilder b = new StringBuilder();
    String head = "Usage: jverity " + command.name();
    b.append(head);
    int col = head.length();
    for (String w : words) {
      if (col + 1 + w.length() > WIDTH) {
        b.append("\n       ");
        col = 7;
      }
      b.append(' ').append(w);
      col += 1 + w.length();
    }
    return b.append('\n').toString();
  }

  private static void options(StringBuilder b, Syntax<?> s) {
    for (Syntax.Option<?> o : s.options()) {
      String names = String.join(", ", shown(o));
      if (!o.names().getFirst().startsWith("--")) {
        names = "  " + names;
      } else {
        names = "      " + names;
      }
      row(
          b,
          names + (o.takesValue() ? "=" + o.label() : ""),
          o.help() + (o.required() ? " (required)" : ""));
    }
  }

  /**
   * The names help shows: all but a dashed twin of an underscored name ({@code --partition-size} of
   * avbtool's {@code --partition_size}), which is accepted but would double the line.
   */
  private static List<String> shown(Syntax.Option<?> o) {
    return o.names().stream()
        .filter(
            n ->
                n.equals(n.replace('-', '_').replaceFirst("^__", "--"))
                    || !o.names().contains(n.replace('-', '_').replaceFirst("^__", "--")))
        .toList();
  }

  /**
   * {@code left}, then {@code text} wrapped from {@link #COLUMN} (on the next line when left is
   * wider).
   */
  private static void row(StringBuilder b, String left, String text) {
    b.append(left);
    if (left.length() + 2 > COLUMN) {
      b.append('\n').append(" ".repeat(COLUMN));
    } else {
      b.append(" ".repeat(COLUMN - left.length()));
    }
    wrap(b, text, COLUMN, COLUMN);
  }

  /**
   * Appends {@code text} in lines of at most {@link #WIDTH}, the first continuing a line at column
   * {@code first}, the others indented by {@code indent}.
   */
  private static void wrap(StringBuilder b, String text, int first, int indent) {
    int col = first;
    boolean lineStart = true;
    for (String word : text.split(" ")) {
      if (!lineStart && col + 1 + word.length() > WIDTH) {
        b.append('\n').append(" ".repeat(indent));
        col = indent;
        lineStart = true;
      }
      if (!lineStart) {
        b.append(' ');
        col++;
      }
      b.append(word);
      col += word.length();
      lineStart = false;
    }
    b.append('\n');
  }
}
