package org.jverity.tree;

import java.util.List;

/**
 * What a full check of an image found. Corruptions are attributed top-down: a hash block is corrupt
 * when it does not match a trusted parent; blocks below a corrupt hash block cannot be checked and
 * are counted in {@link #uncheckedDataBlocks}, not reported one by one.
 *
 * @param rootMatches whether the top of the tree hashes to the root hash given
 * @param computedRoot what the top of the tree hashes to
 * @param corruptions the first corruptions found, at most {@link Corruption#MAX_REPORTED}, in block
 *     order (data area first); when the root does not match they are those below a tree taken as
 *     trusted, to tell a wrong root hash from a damaged image, except that a top block which
 *     disagrees with the level below is itself reported (it explains the root mismatch too)
 * @param corruptionCount all corruptions found
 * @param dataCorruptionCount of which data blocks (a hash file made for other data has almost only
 *     these)
 * @param uncheckedDataBlocks data blocks whose level-0 hash block is itself corrupt
 * @param digestsCompared digests compared in all levels
 * @param digestsMismatched of which did not match
 */
public record CheckReport(
    boolean rootMatches,
    byte[] computedRoot,
    List<Corruption> corruptions,
    long corruptionCount,
    long dataCorruptionCount,
    long uncheckedDataBlocks,
    long digestsCompared,
    long digestsMismatched) {

  public CheckReport {
    corruptions = List.copyOf(corruptions);
    computedRoot = computedRoot.clone();
  }

  @Override
  public byte[] computedRoot() {
    return computedRoot.clone();
  }

  /** True when the root hash matches and no block is corrupt. */
  public boolean ok() {
    return rootMatches && corruptionCount == 0;
  }

  /**
   * True when the root hash does not match and no digest anywhere in the tree matched either: the
   * parameters (salt, algorithm, format, block sizes) are not those the tree was made with.
   */
  public boolean nothingMatches() {
    return !rootMatches && digestsCompared > 0 && digestsMismatched == digestsCompared;
  }
}
