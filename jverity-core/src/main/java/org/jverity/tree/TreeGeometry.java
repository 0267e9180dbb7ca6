package org.jverity.tree;

import org.jverity.format.HashFormat;
import org.jverity.format.VerityParameterException;
import org.jverity.format.VerityParams;
import org.jverity.format.VeritySuperblock;

/**
 * The shape of a dm-verity hash tree and where each level sits on the hash device; pure arithmetic
 * computed once from {@link VerityParams}, identical to cryptsetup's {@code hash_levels()} and the
 * kernel's {@code verity_ctr}. Immutable.
 *
 * <p>Level 0 holds the digests of the data blocks; level i+1 the digests of level i's hash blocks;
 * the top level is a single block whose digest is the root hash. On disk the top level comes
 * first and level 0 last. With one data block there are no levels and the root hash is that
 * block's digest.
 */
public final class TreeGeometry {
  private final VerityParams params;
  private final int digestSize; // bytes
  private final int hashesPerBlockBits; // log2(digests per hash block)
  private final int slotSize; // bytes between consecutive digests in a hash block
  private final long hashStart; // first tree block, in hash blocks from the device start
  private final long[] levelStart; // per level, in hash blocks from the device start
  private final long[] levelBlocks; // per level, in hash blocks
  private final long hashBlocks; // whole tree, in hash blocks

  private TreeGeometry(VerityParams params) {
    this.params = params;
    int hbs = params.hashBlockSize();
    this.digestSize = params.hashAlgorithm().digestSize();
    // floor(log2(hbs / digestSize)): format 0 packs digests but still uses a power-of-two fan-out.
    this.hashesPerBlockBits = 31 - Integer.numberOfLeadingZeros(hbs / digestSize);
    int log2Hbs = Integer.numberOfTrailingZeros(hbs);
    this.slotSize =
        params.hashFormat() == HashFormat.NORMAL ? 1 << (log2Hbs - hashesPerBlockBits) : digestSize;
    this.hashStart =
        params.superblock()
            ? ceilDiv(Math.addExact(params.hashOffset(), VeritySuperblock.SIZE), hbs)
            : params.hashOffset() / hbs;

    long n = params.dataBlocks();
    int levels = 0;
    while (hashesPerBlockBits * levels < 64 && ((n - 1) >>> (hashesPerBlockBits * levels)) != 0) {
      levels++;
    }
    levelStart = new long[levels];
    levelBlocks = new long[levels];
    for (int i = 0; i < levels; i++) {
      int shift = hashesPerBlockBits * (i + 1);
      levelBlocks[i] = shift >= 64 ? 1 : ((n - 1) >>> shift) + 1; // ceil(n / fanout^(i+1))
    }
    long next = hashStart;
    long total = 0;
    for (int i = levels - 1; i >= 0; i--) {
      levelStart[i] = next;
      next = Math.addExact(next, levelBlocks[i]);
      total += levelBlocks[i];
    }
    this.hashBlocks = total;
    Math.multiplyExact(next, (long) hbs); // the device end must be addressable in bytes
  }

  /** Computes the geometry of the tree {@code params} describe. */
  public static TreeGeometry of(VerityParams params) {
    try {
      return new TreeGeometry(params);
    } catch (ArithmeticException e) {
      throw new VerityParameterException(
          "hash offset " + params.hashOffset() + ": the hash area would end past 2^63 bytes");
    }
  }

  public VerityParams params() {
    return params;
  }

  /** Number of levels; 0 when the tree covers a single data block. */
  public int levels() {
    return levelStart.length;
  }

  /** Digest size in bytes. */
  public int digestSize() {
    return digestSize;
  }

  /** log2 of the number of digests in one hash block. */
  public int hashesPerBlockBits() {
    return hashesPerBlockBits;
  }

  /** Digests per hash block (the fan-out). */
  public int hashesPerBlock() {
    return 1 << hashesPerBlockBits;
  }

  /** Bytes from one digest to the next in a hash block: a power of two in format 1, the digest size in format 0. */
  public int slotSize() {
    return slotSize;
  }

  /** First block of the tree, in hash blocks from the start of the hash device. */
  public long hashStart() {
    return hashStart;
  }

  /** First block of {@code level}, in hash blocks from the start of the hash device. */
  public long levelStart(int level) {
    return levelStart[level];
  }

  /** Number of hash blocks in {@code level}. */
  public long levelBlocks(int level) {
    return levelBlocks[level];
  }

  /** Number of hash blocks in the whole tree (veritysetup's "Hash blocks"). */
  public long hashBlocks() {
    return hashBlocks;
  }

  /** Bytes of hash device needed, from its start to the end of the tree (veritysetup's "Hash device size"). */
  public long hashDeviceSize() {
    return (hashStart + hashBlocks) * params.hashBlockSize();
  }

  /** Byte offset on the hash device where the tree (its top level) begins. */
  public long treeOffset() {
    return hashStart * params.hashBlockSize();
  }

  /** Bytes in the tree. */
  public long treeSize() {
    return hashBlocks * params.hashBlockSize();
  }

  /** Number of blocks hashed into {@code level}: data blocks for level 0, else the level below's. */
  public long inputBlocks(int level) {
    return level == 0 ? params.dataBlocks() : levelBlocks[level - 1];
  }

  /**
   * Where the digest of input block {@code index} of {@code level} is stored (for level 0, the
   * digest of data block {@code index}).
   */
  public HashLocation locate(int level, long index) {
    int slot = (int) (index & (hashesPerBlock() - 1)); // < fan-out, fits int
    return new HashLocation(levelStart[level] + (index >>> hashesPerBlockBits), slot * slotSize);
  }

  /** Where the level-{@code level} digest on the path of data block {@code dataBlock} is stored. */
  public HashLocation locateForDataBlock(int level, long dataBlock) {
    return locate(level, dataBlock >>> (hashesPerBlockBits * level));
  }

  /**
   * Throws if the hash area overlaps the data when both live in one file: the superblock (if any)
   * and the tree must start at or after the end of the data.
   */
  public void checkNoOverlapWithData() {
    long dataEnd = params.dataSize();
    long areaStart = Math.min(params.hashOffset(), treeOffset());
    if (areaStart < dataEnd) {
      throw new VerityParameterException(
          "hash offset: " + params.hashOffset() + " (the hash area starting at byte " + areaStart
              + " overlaps the data, which ends at byte " + dataEnd + ")");
    }
  }

  private static long ceilDiv(long a, long b) {
    return Math.ceilDiv(a, b);
  }

  @Override
  public String toString() {
    StringBuilder s = new StringBuilder("TreeGeometry[levels=" + levels() + ", hashStart=" + hashStart);
    for (int i = 0; i < levels(); i++) {
      s.append(", L").append(i).append('=').append(levelStart[i]).append('+').append(levelBlocks[i]);
    }
    return s.append(']').toString();
  }
}
