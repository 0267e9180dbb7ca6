package org.jverity.cli.avb;

import static org.jverity.cli.command.CommandList.command;

import java.util.List;
import org.jverity.cli.command.CliException;
import org.jverity.cli.command.Command;
import org.jverity.cli.command.CommandList;
import org.jverity.cli.command.ExitCode;
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
   * that subcommand's syntax ({@link #named}) instead.
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

  public static final List<String> NAMES = LIST.names();

  /** The subcommand's syntax, or null when there is none of that name. */
  public static Syntax<? extends Command> named(String name) {
    return LIST.named(name);
  }

  public static List<Syntax<? extends Command>> all() {
    return LIST.all();
  }

  /** {@code jverity avb} with no subcommand. */
  private static int missing(Io io) {
    throw new CliException(
        ExitCode.USAGE,
        "missing subcommand (subcommands: "
            + String.join(", ", NAMES)
            + "; see 'jverity avb --help')");
  }
}
