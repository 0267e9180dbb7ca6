package org.jverity.verify;

import java.io.IOException;
import org.jverity.tree.Area;

/**
 * Produces a corrected copy of a block that failed verification (and its recheck): the seam where
 * forward error correction plugs in. The reader copies whatever it returns and verifies the copy
 * against the trusted digest before using it, so a repairer needs no trust (nor can it change the
 * bytes afterwards); it may use {@code check} to try several corrections (as the kernel's FEC does:
 * first without erasures, then with them) and return the first that verifies. A repairer that
 * throws repaired nothing: the block goes on to the {@link CorruptionMode} policy like any other
 * that did not verify, with the exception attached to the {@link CorruptBlockException} as a
 * suppressed one. Never called on the inline path. Must be thread-safe.
 */
@FunctionalInterface
public interface BlockRepairer {
  /** Repairs nothing: the default. */
  BlockRepairer NONE = (area, block, blockSize, check) -> null;

  /**
   * @param area data or hash
   * @param block data block number, or hash block number on the hash device
   * @param blockSize bytes in the block
   * @param check whether a candidate hashes to the block's trusted digest (cheap: one hash)
   * @return the corrected block ({@code blockSize} bytes), or null when it cannot be repaired
   */
  byte[] repair(Area area, long block, int blockSize, BlockCheck check) throws IOException;

  /**
   * Tells whether a candidate for the block being repaired verifies against the tree: false for
   * null or a candidate of the wrong size; never throws. Callable from any thread.
   */
  @FunctionalInterface
  interface BlockCheck {
    boolean verifies(byte[] candidate);
  }
}
