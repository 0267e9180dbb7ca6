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
 */
public record AvbTreeReport(
    boolean rootMatches,
    long corruptDataBlocks,
    long corruptHashBlocks,
    long repairableBlocks,
    long unrepairableBlocks,
    String firstProblem) {

  public AvbTreeReport {
    Objects.requireNonNull(firstProblem, "firstProblem");
    if (corruptDataBlocks < 0
        || corruptHashBlocks < 0
        || repairableBlocks < 0
        || unrepairableBlocks < 0) {
      throw new IllegalArgumentException("block counts: negative");
    }
  }

  /** True when the root digest matches and no block is corrupt. */
  public boolean ok() {
    return rootMatches && corruptDataBlocks == 0 && corruptHashBlocks == 0;
  }

  /** True when FEC can repair everything found (nothing found included). */
  public boolean repairable() {
    return unrepairableBlocks == 0 && (ok() || repairableBlocks > 0);
  }
}
