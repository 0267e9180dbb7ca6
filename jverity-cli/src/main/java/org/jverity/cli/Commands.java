package org.jverity.cli;

import static org.jverity.cli.command.CommandList.command;

import java.util.List;
import org.jverity.cli.avb.AvbCommands;
import org.jverity.cli.command.Command;
import org.jverity.cli.command.CommandGroup;
import org.jverity.cli.command.CommandList;
import org.jverity.cli.ddi.DdiCommands;
import org.jverity.cli.demo.DemoCommand;
import org.jverity.cli.fsverity.CatCommand;
import org.jverity.cli.fsverity.DigestCommand;
import org.jverity.cli.fsverity.SignCommand;
import org.jverity.cli.fsverity.VerifySigCommand;
import org.jverity.cli.serve.CloseCommand;
import org.jverity.cli.serve.OpenCommand;
import org.jverity.cli.serve.ReloadCommand;
import org.jverity.cli.serve.ServeCommand;
import org.jverity.cli.serve.StatusCommand;
import org.jverity.cli.syntax.Syntax;
import org.jverity.cli.verity.DumpCommand;
import org.jverity.cli.verity.FormatCommand;
import org.jverity.cli.verity.ReadCommand;
import org.jverity.cli.verity.RepairCommand;
import org.jverity.cli.verity.VerifyCommand;

/**
 * Every command by name. A command line naming one command builds that command's syntax only (its
 * class's static initialiser); help and a leading option's lookup build them all.
 */
final class Commands {
  private Commands() {}

  /** In the order help lists them. */
  private static final CommandList LIST =
      CommandList.of(
          command("format", () -> FormatCommand.SYNTAX),
          command("verify", () -> VerifyCommand.SYNTAX),
          command("dump", () -> DumpCommand.SYNTAX),
          command("read", () -> ReadCommand.SYNTAX),
          command("repair", () -> RepairCommand.SYNTAX),
          command("open", () -> OpenCommand.SYNTAX),
          command("serve", () -> ServeCommand.SYNTAX),
          command("status", () -> StatusCommand.SYNTAX),
          command("close", () -> CloseCommand.SYNTAX),
          command("reload", () -> ReloadCommand.SYNTAX),
          command("demo", () -> DemoCommand.SYNTAX),
          command("digest", () -> DigestCommand.SYNTAX),
          command("cat", () -> CatCommand.SYNTAX),
          command("sign", () -> SignCommand.SYNTAX),
          command("verify-sig", () -> VerifySigCommand.SYNTAX),
          command(AvbCommands.NAME, () -> AvbCommands.SYNTAX),
          command(DdiCommands.NAME, () -> DdiCommands.SYNTAX));

  static final List<String> NAMES = LIST.names();

  /**
   * The commands made of subcommands, each also one of {@link #LIST}'s by its name: what the
   * dispatch, help, the man pages and the completions treat as a group.
   */
  static final List<CommandGroup> GROUPS = List.of(AvbCommands.GROUP, DdiCommands.GROUP);

  /** The group whose own syntax {@code command} is, or null when it is none's (or null). */
  static CommandGroup group(Syntax<? extends Command> command) {
    for (CommandGroup g : GROUPS) {
      if (g.syntax() == command) {
        return g;
      }
    }
    return null;
  }

  /** The syntax of the command {@code name}, or null when there is none of that name. */
  static Syntax<? extends Command> named(String name) {
    return LIST.named(name);
  }

  static List<Syntax<? extends Command>> all() {
    return LIST.all();
  }

  /**
   * Whether the option {@code name} (a global one, or any command's) takes a value: how a global
   * option before the command's name is told from the command.
   */
  static boolean optionTakesValue(String name) {
    if (GlobalOptions.SYNTAX.option(name) != null) {
      return false; // all flags
    }
    for (String n : NAMES) {
      Syntax.Option<?> o = named(n).option(name);
      if (o != null) {
        return o.takesValue();
      }
    }
    return false; // unknown: the command's parser says so
  }
}
