package org.jverity.cli.verity;

import org.jverity.cli.command.CliException;
import org.jverity.cli.command.ExitCode;
import org.jverity.cli.syntax.Syntax;
import org.jverity.verify.CorruptionMode;

/**
 * dm-verity's table options for what a served image does on corruption, named as veritysetup names
 * them. At most one of the three modes may be given; without one a corrupted block fails its
 * request with EIO and serving goes on. {@code --error-as-corruption} (veritysetup 2.8, the
 * kernel's {@code restart_on_error} / {@code panic_on_error}) needs a mode that stops serving.
 */
public final class CorruptionOptions {
  boolean ignoreCorruption;
  boolean restartOnCorruption;
  boolean panicOnCorruption;
  boolean errorAsCorruption;
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
              "--error-as-corruption",
              "With --restart-on-corruption or --panic-on-corruption: an I/O error reading the data or hash device counts as corruption.",
              c -> c.errorAsCorruption = true)
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

  /**
   * Whether an I/O error of the data or hash device counts as corruption; refused, as veritysetup
   * refuses it, without a mode that stops serving.
   */
  public boolean errorAsCorruption() {
    if (errorAsCorruption && !mode().failsClosed()) {
      throw new CliException(
          ExitCode.USAGE,
          "--error-as-corruption without --restart-on-corruption or --panic-on-corruption"
              + " (expected: one of them too)");
    }
    return errorAsCorruption;
  }
}
