package org.jverity.nbd;

import java.io.EOFException;
import java.io.IOException;
import java.util.Set;
import org.jverity.tree.Area;
import org.jverity.verify.CacheStats;
import org.jverity.verify.CorruptBlockException;
import org.jverity.verify.SourceStats;
import org.jverity.verify.VerifiedSource;

/**
 * A {@link VerifiedSource} in memory, for the server's handlers without a tree: blocks listed as
 * corrupt fail as a reader's do (the lowest one in the range, bytes before it delivered), blocks
 * listed as zero are reported as such, as a reader does from their trusted digests (holes too under
 * ignore_zero_blocks). Counts the corruptions it threw.
 */
final class MemorySource implements VerifiedSource {
  private final byte[] bytes;
  private final int blockSize;
  private final Set<Long> corrupt; // data blocks that fail
  private final Set<Long> zero; // blocks whose trusted digest is the zero block's
  private final boolean ignoreZeroBlocks;
  private volatile long corruptions;

  MemorySource(
      byte[] bytes, int blockSize, Set<Long> corrupt, Set<Long> zero, boolean ignoreZeroBlocks) {
    this.bytes = bytes;
    this.blockSize = blockSize;
    this.corrupt = corrupt;
    this.zero = zero;
    this.ignoreZeroBlocks = ignoreZeroBlocks;
  }

  /** A source with no zero blocks. */
  MemorySource(byte[] bytes, int blockSize, Set<Long> corrupt) {
    this(bytes, blockSize, corrupt, Set.of(), false);
  }

  @Override
  public long size() {
    return bytes.length;
  }

  @Override
  public int blockSize() {
    return blockSize;
  }

  @Override
  public synchronized void read(long offset, byte[] dst, int dstOffset, int length)
      throws IOException {
    if (offset < 0 || offset + length > bytes.length) {
      throw new EOFException("read of " + length + " at " + offset + " past " + bytes.length);
    }
    for (long b = offset / blockSize; b * blockSize < offset + length; b++) {
      if (corrupt.contains(b)) {
        int good = (int) Math.max(0, b * blockSize - offset);
        System.arraycopy(bytes, (int) offset, dst, dstOffset, good);
        corruptions++;
        throw new CorruptBlockException("memory", Area.DATA, b, 0, b);
      }
    }
    System.arraycopy(bytes, (int) offset, dst, dstOffset, length);
  }

  @Override
  public boolean ignoresZeroBlocks() {
    return ignoreZeroBlocks;
  }

  @Override
  public boolean isZeroBlock(long block) {
    return zero.contains(block);
  }

  @Override
  public SourceStats stats() {
    return new SourceStats(
        corruptions, 0, false, 0, 0, 0, new CacheStats(0, 0, 0, 0, 0, 0, 0, 0, 0));
  }
}
