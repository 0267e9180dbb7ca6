package org.jverity.avb.hashtree;

import java.util.Objects;

/**
 * What {@link AvbHashtree#check} found in an image's hashtree and FEC.
 *
 * @param rootMatches whether the tree (the data block, for a one-block image; the salt, for an
 *     empty one) hashes to the root digest given
 * @param corruptDataBlocks data blocks that do not match their digest, and those under a corrupt
 *     hash block (which cannot be checked)
 * @param corruptHashBlocks hash blocks that do not match their parent or have non-zero spare bytes
 * @param repairableBlocks blocks FEC corrected in memory, each verified against the tree (data and
 *     hash blocks); 0 without FEC
 * @param unrepairableBlocks data blocks that cannot be read verified even with FEC; without FEC,
 *     every corrupt block
 * @param firstProblem one line naming the first problem (block order, data first), empty when
 *     {@link #ok()}
 * @param staleParityBlocks FEC parity blocks that do not match the data and tree (checked only when
 *     the tree verifies: a stale or zeroed FEC area, which would repair nothing); a device refuses
 *     nothing for them, so {@link #treeOk()} leaves them out
 */
public record AvbTreeReport(
    boolean rootMatches,
    long corruptDataBlocks,
    long corruptHashBlocks,
    long repairableBlocks,
    long unrepairableBlocks,
    String firstProblem,
    long staleParityBlocks) {

  public AvbTreeReport {
    Objects.requireNonNull(firstProblem, "firstProblem");
    if (corruptDataBlocks < 0
        || corruptHashBlocks < 0
        || repairableBlocks < 0
        || unrepairableBlocks < 0
        || staleParityBlocks < 0) {
      throw new IllegalArgumentException("block counts: negative");
    }
  }

  /** The report of the contract's six fields: no parity checked. */
  public AvbTreeReport(
      boolean rootMatches,
      long corruptDataBlocks,
      long corruptHashBlocks,
      long repairableBlocks,
      long unrepairableBlocks,
      String firstProblem) {
    this(
        rootMatches,
        corruptDataBlocks,
        corruptHashBlocks,
        repairableBlocks,
        unrepairableBlocks,
        firstProblem,
        0);
  }

  /** True when the root digest matches, no block is corrupt and the FEC parity is current. */
  public boolean ok() {
    return treeOk() && staleParityBlocks == 0;
  }

  /** True when the root digest matches and no block is corrupt: what dm-verity checks. */
  public boolean treeOk() {
    return rootMatches && corruptDataBlocks == 0 && corruptHashBlocks == 0;
  }

  /**
   * True when FEC can repair everything found (nothing found included); never with stale parity,
   * which would repair nothing.
   */
  public boolean repairable() {
    return staleParityBlocks == 0 && unrepairableBlocks == 0 && (treeOk() || repairableBlocks > 0);
  }
}
