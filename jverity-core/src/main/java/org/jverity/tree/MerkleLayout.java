package org.jverity.tree;

import java.util.Arrays;
import org.jverity.format.HashFormat;
import org.jverity.format.VerityParameterException;
import org.jverity.format.VerityParams;
import org.jverity.format.VeritySuperblock;
import org.jverity.hash.HashAlgorithm;

/**
 * The shape of a Merkle tree over a data area, and where each digest sits: pure arithmetic,
 * computed once, and the only place it lives. The builder, the checker, the verified reader and the
 * prefetcher all ask this type, so they cannot disagree. Immutable and thread-safe.
 *
 * <p>Level 0 holds the digests of the data blocks; level i+1 the digests of level i's hash blocks;
 * the top level is one block, whose digest is the root hash. On disk the top level comes first and
 * level 0 last (dm-verity and fs-verity alike). A tree over at most one data block has no levels:
 * the root hash is that block's digest (fs-verity: an empty file has the all-zero root).
 *
 * <p>Two factories: {@link #dmVerity} (cryptsetup's {@code hash_levels()}, the kernel's {@code
 * verity_ctr}: data in whole blocks, digests in power-of-two slots in format 1, packed in format 0
 * with a power-of-two fan-out, the tree after the superblock if any) and {@link #fsVerity} (one
 * block size, packed digests, data measured in bytes with a zero-padded last block, the tree
 * starting at offset 0).
 */
public final class MerkleLayout {
  private final int dataBlockSize; // bytes
  private final int hashBlockSize; // bytes
  private final int digestSize; // bytes
  private final int hashesPerBlockBits; // log2(digests per hash block)
  private final int slotSize; // bytes from one digest to the next in a hash block
  private final long dataSize; // bytes of data covered (the last block may be partial: fs-verity)
  private final long dataBlocks; // leaves: data blocks covered, the last one zero-padded
  private final long
      hashOffset; // bytes, where the hash area (dm-verity: superblock, else tree) is said to start
  private final long firstHashBlock; // where the tree starts, in hash blocks from the device start
  private final long[] levelStart; // per level, in hash blocks from the device start
  private final long[] levelBlocks; // per level, in hash blocks
  private final long hashBlocks; // whole tree, in hash blocks

  private MerkleLayout(
      int dataBlockSize,
      int hashBlockSize,
      int digestSize,
      boolean packed,
      long dataSize,
      long hashOffset,
      long firstHashBlock) {
    this.dataBlockSize = dataBlockSize;
    this.hashBlockSize = hashBlockSize;
    this.digestSize = digestSize;
    // floor(log2(hbs / digestSize)): packed digests still use a power-of-two fan-out.
    this.hashesPerBlockBits = 31 - Integer.numberOfLeadingZeros(hashBlockSize / digestSize);
    this.slotSize = packed ? digestSize : hashBlockSize >>> hashesPerBlockBits;
    this.dataSize = dataSize;
    this.dataBlocks = Math.ceilDiv(dataSize, dataBlockSize);
    this.hashOffset = hashOffset;
    this.firstHashBlock = firstHashBlock;

    int levels = 0;
    if (dataBlocks > 1) {
      while (hashesPerBlockBits * levels < 64
          && ((dataBlocks - 1) >>> (hashesPerBlockBits * levels)) != 0) {
        levels++;
      }
    }
    levelStart = new long[levels];
    levelBlocks = new long[levels];
    for (int i = 0; i < levels; i++) {
      int shift = hashesPerBlockBits * (i + 1);
      levelBlocks[i] = shift >= 64 ? 1 : ((dataBlocks - 1) >>> shift) + 1; // ceil(n / fanout^(i+1))
    }
    long next = firstHashBlock;
    long total = 0;
    for (int i = levels - 1; i >= 0; i--) {
      levelStart[i] = next;
      next = Math.addExact(next, levelBlocks[i]);
      total += levelBlocks[i];
    }
    this.hashBlocks = total;
    Math.multiplyExact(next, (long) hashBlockSize); // the tree's end must be addressable in bytes
  }

  /**
   * The layout of the dm-verity tree {@code p} describes, at its place on the hash device: from the
   * first whole hash block after the superblock, or from the hash block holding the hash offset
   * when there is none ({@code hash_start} in cryptsetup's {@code VERITY_create_or_verify_hash}).
   *
   * @throws VerityParameterException if the tree would end past 2^63 bytes
   */
  public static MerkleLayout dmVerity(VerityParams p) {
    try {
      long hashStart =
          p.superblock()
              ? Math.ceilDiv(
                  Math.addExact(p.hashOffset(), VeritySuperblock.SIZE), p.hashBlockSize())
              : p.hashOffset() / p.hashBlockSize();
      return new MerkleLayout(
          p.dataBlockSize(),
          p.hashBlockSize(),
          p.hashAlgorithm().digestSize(),
          p.hashFormat() == HashFormat.CHROME_OS,
          p.dataSize(),
          p.hashOffset(),
          hashStart);
    } catch (ArithmeticException e) {
      throw new VerityParameterException(
          "hash offset " + p.hashOffset() + ": the hash area would end past 2^63 bytes");
    }
  }

  /**
   * The layout of the fs-verity tree of a {@code fileSize}-byte file hashed with {@code algorithm}
   * in {@code blockSize}-byte blocks (data and hash blocks alike), the tree starting at offset 0 as
   * {@code fsverity digest --out-merkle-tree} writes it.
   */
  public static MerkleLayout fsVerity(HashAlgorithm algorithm, int blockSize, long fileSize) {
    if (blockSize < 2 * algorithm.digestSize() || Integer.bitCount(blockSize) != 1) {
      throw new VerityParameterException(
          "block size: "
              + blockSize
              + " (expected: a power of two of at least "
              + 2 * algorithm.digestSize()
              + " bytes for "
              + algorithm
              + ")");
    }
    if (fileSize < 0) {
      throw new VerityParameterException("file size: " + fileSize + " (expected: >= 0)");
    }
    return new MerkleLayout(blockSize, blockSize, algorithm.digestSize(), true, fileSize, 0, 0);
  }

  /** Bytes per data block. */
  public int dataBlockSize() {
    return dataBlockSize;
  }

  /** Bytes per hash block. */
  public int hashBlockSize() {
    return hashBlockSize;
  }

  /** Digest size in bytes. */
  public int digestSize() {
    return digestSize;
  }

  /** Bytes of data the tree covers; the last data block holds fewer when this is not a multiple. */
  public long dataSize() {
    return dataSize;
  }

  /**
   * Data blocks covered (leaves), the last one zero-padded when {@link #dataSize()} ends inside it.
   */
  public long dataBlocks() {
    return dataBlocks;
  }

  /** Number of levels; 0 when the tree covers at most one data block. */
  public int levels() {
    return levelStart.length;
  }

  /** log2 of the number of digests in one hash block. */
  public int hashesPerBlockBits() {
    return hashesPerBlockBits;
  }

  /** Digests per hash block (the fan-out). */
  public int hashesPerBlock() {
    return 1 << hashesPerBlockBits;
  }

  /** Bytes from one digest to the next in a hash block; the digest size when digests are packed. */
  public int slotSize() {
    return slotSize;
  }

  /** First block of the tree (its top level), in hash blocks from the start of the hash device. */
  public long firstHashBlock() {
    return firstHashBlock;
  }

  /** First block of {@code level}, in hash blocks from the start of the hash device. */
  public long levelStart(int level) {
    return levelStart[level];
  }

  /** Number of hash blocks in {@code level}. */
  public long levelBlocks(int level) {
    return levelBlocks[level];
  }

  /** Hash blocks in the whole tree (veritysetup's "Hash blocks"). */
  public long hashBlocks() {
    return hashBlocks;
  }

  /** Hash block index (from the device start) one past the tree. */
  public long endHashBlock() {
    return firstHashBlock + hashBlocks;
  }

  /** Byte offset on the hash device where the tree (its top level) begins. */
  public long treeOffset() {
    return firstHashBlock * hashBlockSize;
  }

  /** Bytes in the tree. */
  public long treeSize() {
    return hashBlocks * hashBlockSize;
  }

  /**
   * Bytes of hash device from its start to the end of the tree (veritysetup's "Hash device size"),
   * superblock and any space before it included.
   */
  public long hashDeviceSize() {
    return endHashBlock() * hashBlockSize;
  }

  /**
   * Where the hash area begins: at the hash offset (dm-verity's superblock), or earlier when the
   * tree starts in the hash block holding an offset that is not a multiple of the block size.
   */
  public long hashAreaStart() {
    return Math.min(hashOffset, treeOffset());
  }

  /**
   * Throws if the hash area overlaps the data when both live in one file: the superblock (if any)
   * and the tree must start at or after the end of the data.
   */
  public void checkNoOverlapWithData() {
    long areaStart = hashAreaStart();
    if (areaStart < dataSize) {
      throw new VerityParameterException(
          "hash offset: "
              + hashOffset
              + " (the hash area starting at byte "
              + areaStart
              + " overlaps the data, which ends at byte "
              + dataSize
              + ")");
    }
  }

  /**
   * Blocks hashed into {@code level}: data blocks for level 0, else the level below's hash blocks.
   */
  public long inputBlocks(int level) {
    return level == 0 ? dataBlocks : levelBlocks[level - 1];
  }

  /** Bytes of input block {@code level} hashes, per input block: data or hash block size. */
  public int inputBlockSize(int level) {
    return level == 0 ? dataBlockSize : hashBlockSize;
  }

  /**
   * Where the digest of input block {@code index} of {@code level} is stored (for level 0, the
   * digest of data block {@code index}).
   */
  public HashLocation locate(int level, long index) {
    return new HashLocation(hashBlockOf(level, index), offsetOf(index));
  }

  /** Where the level-{@code level} digest on data block {@code dataBlock}'s path is stored. */
  public HashLocation locateForDataBlock(int level, long dataBlock) {
    return locate(level, indexOnPath(level, dataBlock));
  }

  /**
   * Hash block (from the device start) holding the level-{@code level} digest on {@code
   * dataBlock}'s path.
   */
  public long hashBlockOnPath(int level, long dataBlock) {
    return hashBlockOf(level, indexOnPath(level, dataBlock));
  }

  /**
   * Byte offset, in its hash block, of the level-{@code level} digest on {@code dataBlock}'s path.
   */
  public int offsetOnPath(int level, long dataBlock) {
    return offsetOf(indexOnPath(level, dataBlock));
  }

  /**
   * Index, among the blocks hashed into {@code level} (its {@link #inputBlocks input blocks}), of
   * the one on {@code dataBlock}'s path: the data block itself for level 0.
   */
  public long indexOnPath(int level, long dataBlock) {
    return dataBlock >>> (hashesPerBlockBits * level); // level < levels, so the shift is < 64
  }

  private long hashBlockOf(int level, long index) {
    return levelStart[level] + (index >>> hashesPerBlockBits);
  }

  private int offsetOf(long index) {
    return (int) (index & (hashesPerBlock() - 1)) * slotSize; // < hash block size, fits int
  }

  /**
   * Digests hash block {@code hashBlock} (from the device start) of {@code level} holds: the
   * fan-out, or fewer in the level's last block.
   */
  public int digestsIn(int level, long hashBlock) {
    long first = (hashBlock - levelStart[level]) << hashesPerBlockBits; // its first input block
    return (int) Math.min(hashesPerBlock(), inputBlocks(level) - first);
  }

  /**
   * Whether hash block {@code hashBlock} (from the device start) of {@code level}, held in {@code
   * bytes[from, from + hashBlockSize)}, has the padding the builder writes: zeros after each digest
   * in its slot, and zeros past the last digest. A block with anything else there is corrupt even
   * when it hashes to its parent's digest: a tree for more data blocks than the parameters say
   * (data_blocks lowered in a superblock, a file size lowered in an fs-verity descriptor) still
   * hashes to its root, and only its padding tells. {@code veritysetup verify} refuses it ("Spare
   * area is not zeroed"); the checker and the verified reader both ask here.
   */
  public boolean hasZeroPadding(int level, long hashBlock, byte[] bytes, int from) {
    int used = digestsIn(level, hashBlock);
    if (slotSize > digestSize) {
      for (int s = 0; s < used; s++) {
        int at = from + s * slotSize;
        if (!isZero(bytes, at + digestSize, at + slotSize)) {
          return false;
        }
      }
    }
    return isZero(bytes, from + used * slotSize, from + hashBlockSize);
  }

  private static final byte[] ZEROS = new byte[4096];

  private static boolean isZero(byte[] a, int from, int to) {
    for (int i = from; i < to; i += ZEROS.length) {
      int n = Math.min(ZEROS.length, to - i);
      if (!Arrays.equals(a, i, i + n, ZEROS, 0, n)) {
        return false;
      }
    }
    return true;
  }

  /** Level of hash block {@code hashBlock} (from the device start), or -1 when outside the tree. */
  public int levelOf(long hashBlock) {
    for (int i = 0; i < levelStart.length; i++) {
      if (hashBlock >= levelStart[i] && hashBlock - levelStart[i] < levelBlocks[i]) {
        return i;
      }
    }
    return -1;
  }

  @Override
  public String toString() {
    StringBuilder s =
        new StringBuilder("MerkleLayout[levels=" + levels() + ", first=" + firstHashBlock);
    for (int i = 0; i < levels(); i++) {
      s.append(", L")
          .append(i)
          .append('=')
          .append(levelStart[i])
          .append('+')
          .append(levelBlocks[i]);
    }
    return s.append(']').toString();
  }
}
