package org.jverity.cli.ddi;

import static org.jverity.cli.command.CommandList.command;

import org.jverity.cli.command.Command;
import org.jverity.cli.command.CommandGroup;
import org.jverity.cli.command.CommandList;
import org.jverity.cli.command.Io;
import org.jverity.cli.syntax.Syntax;

/**
 * {@code jverity ddi SUBCOMMAND}: systemd's Discoverable Disk Images, built without root, read by
 * systemd-dissect's rules, verified in userspace.
 */
public final class DdiCommands {
  private DdiCommands() {}

  /** The command's name on jverity's command line. */
  public static final String NAME = "ddi";

  /** {@code ddi} itself, as jverity's command list shows it. */
  public static final Syntax<Command> SYNTAX =
      Syntax.<Command>command(
              NAME,
              "Discoverable Disk Images (systemd): build one without root, inspect what"
                  + " systemd-dissect would use, verify it. 'jverity ddi --help' lists the"
                  + " subcommands.",
              () -> DdiCommands::missing)
          .abbreviations();

  /** In the order help lists them. */
  private static final CommandList LIST =
      CommandList.of(
          command("build", () -> DdiBuildCommand.SYNTAX),
          command("inspect", () -> DdiInspectCommand.SYNTAX),
          command("verify", () -> DdiVerifyCommand.SYNTAX));

  /** ddi as a group: options spelt as jverity's, its page's peer systemd-dissect(1), one-shot. */
  public static final CommandGroup GROUP =
      new CommandGroup(SYNTAX, LIST, null, "systemd-dissect(1)", true);

  private static int missing(Io io) {
    throw GROUP.missing();
  }
}
