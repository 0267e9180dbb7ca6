package org.jverity.verify;

import java.util.Objects;

/**
 * How a {@link VerifiedReader} behaves, with dm-verity's options. Immutable.
 *
 * @param cacheBytes bound of the hash block cache, in bytes (default 64 MiB)
 * @param mode what to do on corruption (default {@link CorruptionMode#EIO})
 * @param checkAtMostOnce verify each data block only the first time it is read (a bitmap of
 *     verified data blocks; dm-verity {@code check_at_most_once})
 * @param ignoreZeroBlocks a data block whose wanted digest is the digest of a zero block reads as
 *     zeros without being verified (dm-verity {@code ignore_zero_blocks})
 * @param listener told about corruption
 */
public record ReaderOptions(
    long cacheBytes,
    CorruptionMode mode,
    boolean checkAtMostOnce,
    boolean ignoreZeroBlocks,
    CorruptionListener listener) {

  public static final ReaderOptions DEFAULTS =
      new ReaderOptions(64L << 20, CorruptionMode.EIO, false, false, CorruptionListener.NONE);

  public ReaderOptions {
    if (cacheBytes < 1) {
      throw new IllegalArgumentException("cache size: " + cacheBytes + " (expected: at least 1 byte)");
    }
    Objects.requireNonNull(mode, "mode");
    Objects.requireNonNull(listener, "listener");
  }

  public ReaderOptions withCacheBytes(long v) {
    return new ReaderOptions(v, mode, checkAtMostOnce, ignoreZeroBlocks, listener);
  }

  public ReaderOptions withMode(CorruptionMode v) {
    return new ReaderOptions(cacheBytes, v, checkAtMostOnce, ignoreZeroBlocks, listener);
  }

  public ReaderOptions withCheckAtMostOnce(boolean v) {
    return new ReaderOptions(cacheBytes, mode, v, ignoreZeroBlocks, listener);
  }

  public ReaderOptions withIgnoreZeroBlocks(boolean v) {
    return new ReaderOptions(cacheBytes, mode, checkAtMostOnce, v, listener);
  }

  public ReaderOptions withListener(CorruptionListener v) {
    return new ReaderOptions(cacheBytes, mode, checkAtMostOnce, ignoreZeroBlocks, v);
  }
}
