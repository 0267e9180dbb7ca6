package org.jverity.avb.hashtree;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.concurrent.atomic.AtomicLong;
import org.jverity.io.BlockDevice;
import org.jverity.io.WritableDevice;

/**
 * Where the FEC encoder would write parity, compares it with the image's instead: counts the parity
 * blocks (block-size pieces from the FEC offset) that differ, so a stale or zeroed FEC area is
 * found without writing anything. Thread-safe: the encoder's workers write concurrently, each its
 * own range.
 */
final class ParityComparison implements WritableDevice {
  private final BlockDevice image;
  private final long fecOffset; // bytes
  private final int blockSize; // bytes per counted parity block
  private final AtomicLong mismatched = new AtomicLong();
  private final AtomicLong firstMismatch = new AtomicLong(Long.MAX_VALUE); // byte offset

  ParityComparison(BlockDevice image, long fecOffset, int blockSize) {
    this.image = image;
    this.fecOffset = fecOffset;
    this.blockSize = blockSize;
  }

  /** Parity blocks that differ from what the encoder computed. */
  long mismatchedBlocks() {
    return mismatched.get();
  }

  /** Byte offset of the first parity block that differs; -1 when none. */
  long firstMismatch() {
    long f = firstMismatch.get();
    return f == Long.MAX_VALUE ? -1 : f;
  }

  @Override
  public void writeFully(long offset, ByteBuffer src) throws IOException {
    int len = src.remaining();
    byte[] computed = new byte[len];
    src.get(computed);
    byte[] stored = new byte[len];
    int present = (int) Math.max(0, Math.min(len, image.size() - offset)); // past the end: missing
    if (present > 0) {
      image.readFully(offset, stored, 0, present);
    }
    // Pieces aligned to parity blocks: the encoder writes whole rounds, B·roots bytes each.
    long end = offset + len;
    for (long at = offset; at < end; ) {
      long blockEnd = Math.min(end, fecOffset + ((at - fecOffset) / blockSize + 1) * blockSize);
      int from = (int) (at - offset);
      int to = (int) (blockEnd - offset);
      if (to > present || !Arrays.equals(computed, from, to, stored, from, to)) {
        mismatched.incrementAndGet();
        long blockStart = at;
        firstMismatch.accumulateAndGet(blockStart, Math::min);
      }
      at = blockEnd;
    }
  }

  @Override
  public void flush() {}

  @Override
  public String description() {
    return image.description() + " (FEC parity)";
  }

  @Override
  public long size() throws IOException {
    return image.size();
  }

  @Override
  public void readFully(long offset, ByteBuffer dst) throws IOException {
    image.readFully(offset, dst);
  }

  @Override
  public void close() {} // the image is the caller's
}
