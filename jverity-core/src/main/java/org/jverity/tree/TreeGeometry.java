package org.jverity.tree;

import org.jverity.format.VerityParameterException;
import org.jverity.format.VerityParams;

/**
 * A dm-verity hash tree placed on its hash device: the {@link MerkleLayout} of {@link VerityParams}
 * (which holds all the tree arithmetic, identical to cryptsetup's {@code hash_levels()}) plus what
 * only dm-verity has: the superblock before the tree, the hash device's size, overlap with data in
 * one file. Immutable.
 */
public final class TreeGeometry {
  private final VerityParams params;
  private final MerkleLayout layout;

  private TreeGeometry(VerityParams params) {
    this.params = params;
    this.layout = MerkleLayout.dmVerity(params);
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

  /** The tree's shape and digest locations. */
  public MerkleLayout layout() {
    return layout;
  }

  /** Number of levels; 0 when the tree covers a single data block. */
  public int levels() {
    return layout.levels();
  }

  /** Digest size in bytes. */
  public int digestSize() {
    return layout.digestSize();
  }

  /** log2 of the number of digests in one hash block. */
  public int hashesPerBlockBits() {
    return layout.hashesPerBlockBits();
  }

  /** Digests per hash block (the fan-out). */
  public int hashesPerBlock() {
    return layout.hashesPerBlock();
  }

  /** Bytes from one digest to the next in a hash block: a power of two in format 1, the digest size in format 0. */
  public int slotSize() {
    return layout.slotSize();
  }

  /** First block of the tree, in hash blocks from the start of the hash device. */
  public long hashStart() {
    return layout.firstHashBlock();
  }

  /** First block of {@code level}, in hash blocks from the start of the hash device. */
  public long levelStart(int level) {
    return layout.levelStart(level);
  }

  /** Number of hash blocks in {@code level}. */
  public long levelBlocks(int level) {
    return layout.levelBlocks(level);
  }

  /** Number of hash blocks in the whole tree (veritysetup's "Hash blocks"). */
  public long hashBlocks() {
    return layout.hashBlocks();
  }

  /** Bytes of hash device needed, from its start to the end of the tree (veritysetup's "Hash device size"). */
  public long hashDeviceSize() {
    return layout.endHashBlock() * params.hashBlockSize();
  }

  /** Byte offset on the hash device where the tree (its top level) begins. */
  public long treeOffset() {
    return hashStart() * params.hashBlockSize();
  }

  /** Bytes in the tree. */
  public long treeSize() {
    return hashBlocks() * params.hashBlockSize();
  }

  /** Number of blocks hashed into {@code level}: data blocks for level 0, else the level below's. */
  public long inputBlocks(int level) {
    return layout.inputBlocks(level);
  }

  /**
   * Where the digest of input block {@code index} of {@code level} is stored (for level 0, the
   * digest of data block {@code index}).
   */
  public HashLocation locate(int level, long index) {
    return layout.locate(level, index);
  }

  /** Where the level-{@code level} digest on the path of data block {@code dataBlock} is stored. */
  public HashLocation locateForDataBlock(int level, long dataBlock) {
    return layout.locateForDataBlock(level, dataBlock);
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

  @Override
  public String toString() {
    return "TreeGeometry" + layout.toString().substring("MerkleLayout".length());
  }
}
