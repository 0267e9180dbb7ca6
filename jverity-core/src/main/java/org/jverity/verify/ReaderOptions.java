package org.jverity.verify;

import java.util.Objects;

/**
 * How a {@link VerifiedReader} behaves, with dm-verity's options. Immutable.
 *
 * @param mode what to do on corruption (default {@link CorruptionMode#EIO})
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
    boolean checkAtMostOnce,
    boolean ignoreZeroBlocks,
    CorruptionListener listener,
    BlockRepairer repairer) {

  public static final ReaderOptions DEFAULTS =
      new ReaderOptions(
          CorruptionMode.EIO, false, false, CorruptionListener.NONE, BlockRepairer.NONE);

  public ReaderOptions {
    Objects.requireNonNull(mode, "mode");
    Objects.requireNonNull(listener, "listener");
    Objects.requireNonNull(repairer, "repairer");
  }

  public ReaderOptions withMode(CorruptionMode v) {
    return new ReaderOptions(v, checkAtMostOnce, ignoreZeroBlocks, listener, repairer);
  }

  public ReaderOptions withCheckAtMostOnce(boolean v) {
    return new ReaderOptions(mode, v, ignoreZeroBlocks, listener, repairer);
  }

  public ReaderOptions withIgnoreZeroBlocks(boolean v) {
    return new ReaderOptions(mode, checkAtMostOnce, v, listener, repairer);
  }

  public ReaderOptions withListener(CorruptionListener v) {
    return new ReaderOptions(mode, checkAtMostOnce, ignoreZeroBlocks, v, repairer);
  }

  public ReaderOptions withRepairer(BlockRepairer v) {
    return new ReaderOptions(mode, checkAtMostOnce, ignoreZeroBlocks, listener, v);
  }
}
