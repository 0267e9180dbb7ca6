package org.jverity.cli.command;

import java.util.Objects;
import org.jverity.cli.syntax.Syntax;

/**
 * A command made of subcommands ({@code jverity avb SUBCOMMAND}): what the dispatch, help, the man
 * pages and the completions need to treat it as one, so that a new group is declared here once and
 * not taught to each of them. The group is also one of the commands, by its {@link #name}; a
 * subcommand's syntax is named with both words ({@code "avb info_image"}).
 *
 * @param syntax the group's own syntax: what help lists among the commands, and what runs when no
 *     subcommand is named (an error saying which there are, {@link #missing})
 * @param subcommands in the order help lists them
 * @param spelling what the group's help says of its subcommands' options before listing them
 *     ("their options are avbtool's, spelt with underscores; ..."), or null when they are spelt as
 *     jverity's
 * @param peer the manual page of the tool the group mirrors, for SEE ALSO ({@code "avbtool(1)"}),
 *     or null
 * @param endsAtOnce whether every subcommand is a one-shot run whose process may halt once its
 *     output is flushed (none starts a server; {@code Main}'s exit)
 */
public record CommandGroup(
    Syntax<Command> syntax,
    CommandList subcommands,
    String spelling,
    String peer,
    boolean endsAtOnce) {
  public CommandGroup {
    Objects.requireNonNull(syntax, "syntax");
    Objects.requireNonNull(subcommands, "subcommands");
  }

  /** The group's name on jverity's command line, the first of a subcommand's two words. */
  public String name() {
    return syntax.name();
  }

  /** {@code jverity avb} with no subcommand: what the group's own command throws. */
  public CliException missing() {
    return new CliException(ExitCode.USAGE, "missing subcommand " + listed());
  }

  /** The error for {@code jverity avb NAME} when the group has no subcommand {@code sub}. */
  public String unknown(String sub) {
    return "unknown subcommand '" + name() + " " + sub + "' " + listed();
  }

  /** What both errors end with: the subcommands there are, and where their help is. */
  private String listed() {
    return "(subcommands: "
        + String.join(", ", subcommands.names())
        + "; see 'jverity "
        + name()
        + " --help')";
  }
}
