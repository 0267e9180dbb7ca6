package org.jverity.cli.verity;

import org.jverity.cli.command.CliException;
import org.jverity.cli.command.ExitCode;
import org.jverity.cli.syntax.Syntax;
import org.jverity.verify.CorruptionMode;

/**
 * dm-verity's table options for what a served image does on corruption, named as veritysetup names
 * them. At most one of the three modes may be given; without one a corrupted block fails its
 * request with EIO and serving goes on.
 */
public final class CorruptionOptions {
  boolean ignoreCorruption;
  boolean restartOnCorruption;
  boolean panicOnCorruption;
  public boolean ignoreZeroBlocks;
  public boolean checkAtMostOnce;

  public static final Syntax<CorruptionOptions> SYNTAX =
      Syntax.<CorruptionOptions>group()
          .flag(
              "--ignore-corruption",
              "Log corrupted blocks but serve their data anyway.",
              c -> c.ignoreCorruption = true)
          .flag(
              "--restart-on-corruption",
              "On the first corrupted block, answer ESHUTDOWN from then on and exit with code 11.",
              c -> c.restartOnCorruption = true)
          .flag(
              "--panic-on-corruption",
              "On the first corrupted block, stop at once and exit with code 12.",
              c -> c.panicOnCorruption = true)
          .flag(
              "--ignore-zero-blocks",
              "Blocks whose digest is that of a zero block read as zeros (and are holes to block status).",
              c -> c.ignoreZeroBlocks = true)
          .flag(
              "--check-at-most-once",
              "Verify each data block only the first time it is read.",
              c -> c.checkAtMostOnce = true);

  /**
   * The mode the flags name; at most one may be given (a config file spells the names as its keys).
   */
  public CorruptionMode mode() {
    int given =
        (ignoreCorruption ? 1 : 0) + (restartOnCorruption ? 1 : 0) + (panicOnCorruption ? 1 : 0);
    if (given > 1) {
      throw new CliException(
          ExitCode.USAGE,
          "--ignore-corruption, --restart-on-corruption and --panic-on-corruption: "
              + given
              + " given (expected: at most one)");
    }
    return ignoreCorruption
        ? CorruptionMode.IGNORE
        : restartOnCorruption
            ? CorruptionMode.RESTART
            : panicOnCorruption ? CorruptionMode.PANIC : CorruptionMode.EIO;
  }
}
