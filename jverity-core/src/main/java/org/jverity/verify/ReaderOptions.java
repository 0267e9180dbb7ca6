package org.jverity.verify;

import java.util.Objects;

/**
 * How a {@link VerifiedReader} behaves, with dm-verity's options. Immutable.
 *
 * @param mode what to do on corruption (default {@link CorruptionMode#EIO})
 * @param errorAsCorruption an I/O error of the data or hash device on a read's own path (not a
 *     prefetch's, not an interrupt's, not after close) counts as corruption and goes through the
 *     policy (dm-verity {@code restart_on_error} / {@code panic_on_error}, veritysetup's {@code
 *     --error-as-corruption}); only with {@link CorruptionMode#RESTART} or {@link
 *     CorruptionMode#PANIC}, as veritysetup requires
 * @param checkAtMostOnce verify each data block only the first time it is read (a bitmap of data
 *     blocks that matched their digest; dm-verity {@code check_at_most_once})
 * @param ignoreZeroBlocks a data block whose wanted digest is the digest of a zero block reads as
 *     zeros without being read (dm-verity {@code ignore_zero_blocks})
 * @param listener told about corruption
 * @param repairer asked for a corrected copy of a block that failed its recheck (FEC); by default
 *     none
 */
public record ReaderOptions(
    CorruptionMode mode,
    boolean errorAsCorruption,
    boolean checkAtMostOnce,
    boolean ignoreZeroBlocks,
    CorruptionListener listener,
    BlockRepairer repairer) {

  public static final ReaderOptions DEFAULTS =
      new ReaderOptions(
          CorruptionMode.EIO, false, false, false, CorruptionListener.NONE, BlockRepairer.NONE);

  public ReaderOptions {
    Objects.requireNonNull(mode, "mode");
    Objects.requireNonNull(listener, "listener");
    Objects.requireNonNull(repairer, "repairer");
    if (errorAsCorruption && !mode.failsClosed()) {
      throw new IllegalArgumentException(
          "error as corruption: with mode " + mode + " (expected: RESTART or PANIC)");
    }
  }

  public ReaderOptions withMode(CorruptionMode v) {
    return new ReaderOptions(
        v, errorAsCorruption, checkAtMostOnce, ignoreZeroBlocks, listener, repairer);
  }

  /** With {@code error_as_corruption}: set the mode (RESTART or PANIC) first. */
  public ReaderOptions withErrorAsCorruption(boolean v) {
    return new ReaderOptions(mode, v, checkAtMostOnce, ignoreZeroBlocks, listener, repairer);
  }

  public ReaderOptions withCheckAtMostOnce(boolean v) {
    return new ReaderOptions(mode, errorAsCorruption, v, ignoreZeroBlocks, listener, repairer);
  }

  public ReaderOptions withIgnoreZeroBlocks(boolean v) {
    return new ReaderOptions(mode, errorAsCorruption, checkAtMostOnce, v, listener, repairer);
  }

  public ReaderOptions withListener(CorruptionListener v) {
    return new ReaderOptions(
        mode, errorAsCorruption, checkAtMostOnce, ignoreZeroBlocks, v, repairer);
  }

  public ReaderOptions withRepairer(BlockRepairer v) {
    return new ReaderOptions(
        mode, errorAsCorruption, checkAtMostOnce, ignoreZeroBlocks, listener, v);
  }
}
