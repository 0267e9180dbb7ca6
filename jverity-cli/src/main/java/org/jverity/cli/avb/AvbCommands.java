package org.jverity.cli.avb;

import java.util.List;
import org.jverity.cli.command.CliException;
import org.jverity.cli.command.Command;
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
  public static final List<String> NAMES =
      List.of(
          "add_hashtree_footer",
          "add_hash_footer",
          "make_vbmeta_image",
          "append_vbmeta_image",
          "info_image",
          "verify_image",
          "erase_footer",
          "zero_hashtree",
          "extract_vbmeta_image",
          "resize_image",
          "extract_public_key",
          "calculate_vbmeta_digest",
          "calculate_kernel_cmdline",
          "print_partition_digests");

  /** The subcommand's syntax, or null when there is none of that name. */
  public static Syntax<? extends Command> named(String name) {
    return switch (name) {
      case "add_hashtree_footer" -> AddHashtreeFooterCommand.SYNTAX;
      case "add_hash_footer" -> AddHashFooterCommand.SYNTAX;
      case "make_vbmeta_image" -> MakeVbmetaImageCommand.SYNTAX;
      case "append_vbmeta_image" -> AppendVbmetaImageCommand.SYNTAX;
      case "info_image" -> InfoImageCommand.SYNTAX;
      case "verify_image" -> VerifyImageCommand.SYNTAX;
      case "erase_footer" -> EraseFooterCommand.SYNTAX;
      case "zero_hashtree" -> ZeroHashtreeCommand.SYNTAX;
      case "extract_vbmeta_image" -> ExtractVbmetaImageCommand.SYNTAX;
      case "resize_image" -> ResizeImageCommand.SYNTAX;
      case "extract_public_key" -> ExtractPublicKeyCommand.SYNTAX;
      case "calculate_vbmeta_digest" -> CalculateVbmetaDigestCommand.SYNTAX;
      case "calculate_kernel_cmdline" -> CalculateKernelCmdlineCommand.SYNTAX;
      case "print_partition_digests" -> PrintPartitionDigestsCommand.SYNTAX;
      default -> null;
    };
  }

  public static List<Syntax<? extends Command>> all() {
    return NAMES.stream().<Syntax<? extends Command>>map(AvbCommands::named).toList();
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
