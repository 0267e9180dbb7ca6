package org.jverity.tree;

/**
 * One corrupted block.
 *
 * @param area data or hash
 * @param block for data, the data block number; for hash, the hash block number on the hash device
 *     (from its start, as the kernel counts metadata blocks)
 * @param level for hash blocks, the tree level (0 = digests of data blocks); -1 for data blocks
 * @param kind what is wrong with it
 */
public record Corruption(Area area, long block, int level, Kind kind)
    implements Comparable<Corruption> {
  /**
   * Corruptions reported one by one (logged, listed, kept); the rest are only counted. The kernel's
   * {@code verity_handle_err} stops logging after {@code DM_VERITY_MAX_CORRUPTED_ERRS} (100)
   * corruptions, so a damaged image cannot flood a log; jverity keeps the same bound everywhere it
   * names corrupted blocks, so a long report reads as the kernel's would.
   */
  public static final int MAX_REPORTED = 100;

  public enum Kind {
    /** The block does not hash to the digest its parent holds. */
    DIGEST_MISMATCH,
    /** A hash block's unused bytes are not zero (veritysetup: "Spare area is not zeroed"). */
    SPARE_NOT_ZERO
  }

  public static Corruption data(long block) {
    return new Corruption(Area.DATA, block, -1, Kind.DIGEST_MISMATCH);
  }

  @Override
  public int compareTo(Corruption o) {
    int c = area.compareTo(o.area);
    if (c == 0) {
      c = Long.compare(block, o.block);
    }
    return c != 0 ? c : kind.compareTo(o.kind);
  }

  /**
   * A noun phrase such as {@code data block 1234} or {@code hash block 7 (level 0, spare area not
   * zeroed)}, for callers to complete with "is corrupted".
   */
  public String describe() {
    return ref().describe(kind == Kind.SPARE_NOT_ZERO ? "spare area not zeroed" : null);
  }

  /** The block, without what is wrong with it. */
  public BlockRef ref() {
    return new BlockRef(area, block, level);
  }
}
