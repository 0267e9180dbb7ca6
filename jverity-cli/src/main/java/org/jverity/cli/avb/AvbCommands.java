package org.jverity.cli.avb;

import static org.jverity.cli.command.CommandList.command;

import java.util.List;
import org.jverity.cli.command.Command;
import org.jverity.cli.command.CommandGroup;
import org.jverity.cli.command.CommandList;
import org.jverity.cli.command.Io;
import org.jverity.cli.syntax.Syntax;

/**
 * {@code jverity avb SUBCOMMAND}: avbtool's subcommands, by avbtool's names, so that a build script
 * calling {@code avbtool add_hashtree_footer ...} runs as {@code jverity avb add_hashtree_footer
 * ...}.
 */
public final class AvbCommands {
  private AvbCommands() {}

  /** The command's name on jverity's command line. */
  public static final String NAME = "avb";

  /**
   * {@code avb} itself, as jverity's command list shows it; a command line naming a subcommand runs
   * that subcommand's syntax ({@link #GROUP}) instead.
   */
  public static final Syntax<Command> SYNTAX =
      Syntax.<Command>command(
              NAME,
              "Android Verified Boot: avbtool's commands (add_hashtree_footer, info_image, ...), byte"
                  + " for byte avbtool's output, FEC built in. 'jverity avb --help' lists them.",
              () -> AvbCommands::missing)
          .abbreviations();

  /** In the order help lists them. */
  private static final CommandList LIST =
      CommandList.of(
          command("add_hashtree_footer", () -> AddHashtreeFooterCommand.SYNTAX),
          command("add_hash_footer", () -> AddHashFooterCommand.SYNTAX),
          command("make_vbmeta_image", () -> MakeVbmetaImageCommand.SYNTAX),
          command("append_vbmeta_image", () -> AppendVbmetaImageCommand.SYNTAX),
          command("info_image", () -> InfoImageCommand.SYNTAX),
          command("verify_image", () -> VerifyImageCommand.SYNTAX),
          command("erase_footer", () -> EraseFooterCommand.SYNTAX),
          command("zero_hashtree", () -> ZeroHashtreeCommand.SYNTAX),
          command("extract_vbmeta_image", () -> ExtractVbmetaImageCommand.SYNTAX),
          command("resize_image", () -> ResizeImageCommand.SYNTAX),
          command("extract_public_key", () -> ExtractPublicKeyCommand.SYNTAX),
          command("calculate_vbmeta_digest", () -> CalculateVbmetaDigestCommand.SYNTAX),
          command("calculate_kernel_cmdline", () -> CalculateKernelCmdlineCommand.SYNTAX),
          command("print_partition_digests", () -> PrintPartitionDigestsCommand.SYNTAX));

  /**
   * avb as a group of subcommands: their options spelt as avbtool's, its page's peer avbtool(1),
   * each a one-shot run on files.
   */
  public static final CommandGroup GROUP =
      new CommandGroup(
          SYNTAX,
          LIST,
          "their options are avbtool's, spelt with underscores; dashes are accepted too, and any"
              + " prefix that picks one option, as avbtool's argparse takes it",
          "avbtool(1)",
          true);

  /** The subcommands' names, in the order help lists them. */
  public static final List<String> NAMES = LIST.names();

  /** Every subcommand's syntax, in the order help lists them. */
  public static List<Syntax<? extends Command>> all() {
    return LIST.all();
  }

  /** {@code jverity avb} with no subcommand. */
  private static int missing(Io io) {
    throw GROUP.missing();
  }
}
