package org.jverity.cli;

import org.jverity.verify.CorruptionMode;
import picocli.CommandLine.Option;

/**
 * dm-verity's table options for what a served image does on corruption, named as veritysetup
 * names them. At most one of the three modes may be given; without one a corrupted block fails its
 * request with EIO and serving goes on.
 */
final class CorruptionOptions {
  @Option(names = "--ignore-corruption", description = "Log corrupted blocks but serve their data anyway.")
  boolean ignoreCorruption;

  @Option(names = "--restart-on-corruption",
      description = "On the first corrupted block, answer ESHUTDOWN from then on and exit with code 11.")
  boolean restartOnCorruption;

  @Option(names = "--panic-on-corruption",
      description = "On the first corrupted block, stop at once and exit with code 12.")
  boolean panicOnCorruption;

  @Option(names = "--ignore-zero-blocks",
      description = "Blocks whose digest is that of a zero block read as zeros (and are holes to block status).")
  boolean ignoreZeroBlocks;

  @Option(names = "--check-at-most-once", description = "Verify each data block only the first time it is read.")
  boolean checkAtMostOnce;

  /** The mode the flags name. */
  CorruptionMode mode() {
    return mode(ignoreCorruption, restartOnCorruption, panicOnCorruption, "--", "");
  }

  /**
   * The mode named by the three flags; {@code prefix}/{@code where} shape the message when more
   * than one is set ("--" for options, "" and "file:line: " for a config file).
   */
  static CorruptionMode mode(boolean ignore, boolean restart, boolean panic, String prefix, String where) {
    int given = (ignore ? 1 : 0) + (restart ? 1 : 0) + (panic ? 1 : 0);
    if (given > 1) {
      throw new CliException(ExitCode.USAGE, where + prefix + "ignore-corruption, " + prefix
          + "restart-on-corruption and " + prefix + "panic-on-corruption: " + given + " given (expected: at most one)");
    }
    return ignore ? CorruptionMode.IGNORE
        : restart ? CorruptionMode.RESTART
        : panic ? CorruptionMode.PANIC
        : CorruptionMode.EIO;
  }
}
