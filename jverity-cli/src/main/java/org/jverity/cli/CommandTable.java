package org.jverity.cli;

import java.util.List;
import org.jverity.cli.command.Command;
import org.jverity.cli.command.CommandGroup;
import org.jverity.cli.syntax.Syntax;

/**
 * The declarations the man pages and completions are generated from ({@code org.jverity.cli.doc}):
 * the same ones {@code --help} and the parser read, so the documents cannot drift from them.
 */
public final class CommandTable {
  private CommandTable() {}

  /** Every command, in the order help lists them. */
  public static List<Syntax<? extends Command>> commands() {
    return Commands.all();
  }

  /** The commands made of subcommands ({@code avb}), each also one of {@link #commands}. */
  public static List<CommandGroup> subcommandGroups() {
    return Commands.GROUPS;
  }

  /** The options every command takes, before or after its name. */
  public static Syntax<?> globalOptions() {
    return GlobalOptions.SYNTAX;
  }

  /** What {@code jverity --version} prints after "jverity ". */
  public static String version() {
    return Version.get();
  }
}
