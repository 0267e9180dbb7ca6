package org.jverity.cli.verity;

import java.io.IOException;
import java.security.MessageDigest;
import java.util.Arrays;
import org.jverity.format.VerityParams;
import org.jverity.hash.BlockHasher;
import org.jverity.io.BlockDevice;
import org.jverity.tree.HashLocation;
import org.jverity.tree.MerkleLayout;
import org.jverity.tree.TreeRoot;

/**
 * Why the top hash block does not hash to the root hash given. {@code verify} checks the whole tree
 * and tells the cases apart ({@code TreeChecker}); {@code read} stops at its first failure and can
 * afford only a few blocks: the top block's children and one data block's path. They are read again
 * here and trusted for nothing but this verdict.
 *
 * @param verdict what those blocks show
 * @param treeRoot what the top hash block hashes to
 */
record RootMismatch(Verdict verdict, byte[] treeRoot) {
  /**
   * Children of the top block compared at most (spread evenly): enough to see whether the top
   * agrees with the level below, while a top block of huge fan-out (16,384 children of 512 KiB)
   * still costs at most 256 reads.
   */
  static final int MAX_CHILDREN = 256;

  enum Verdict {
    /**
     * The top block agrees with every child compared: the tree is intact and the root hash given is
     * not its own (verify: "the tree matches the data: wrong root hash?").
     */
    WRONG_ROOT_HASH,
    /**
     * No block compared matches the digest above it: the tree was not made with these parameters
     * (salt, hash algorithm, format, block size), as verify's "no block matches its hash".
     */
    WRONG_PARAMETERS,
    /**
     * Blocks match lower down, or some children do, but the top block disagrees: it is damaged.
     * Also a top block that hashes to the root hash but was refused for its padding (digests past
     * the tree's end: a data_blocks lowered in the superblock).
     */
    TOP_BLOCK_CORRUPT
  }

  RootMismatch {
    treeRoot = treeRoot.clone();
  }

  @Override
  public byte[] treeRoot() {
    return treeRoot.clone();
  }

  /**
   * Examines a tree of at least one level whose top block was refused against {@code rootHash}: the
   * top block's children, and the path of data block {@code dataBlock} below them.
   *
   * @throws IllegalArgumentException if the tree has no hash levels (one data block: its digest is
   *     the root hash, and nothing else tells a wrong root hash from a damaged block)
   */
  static RootMismatch examine(
      VerityParams p, BlockDevice data, BlockDevice hash, byte[] rootHash, long dataBlock)
      throws IOException {
    MerkleLayout layout = MerkleLayout.dmVerity(p);
    int top = layout.levels() - 1;
    if (top < 0) {
      throw new IllegalArgumentException("levels: 0 (expected: a tree with hash blocks)");
    }
    BlockHasher hasher = p.blockHasher();
    byte[] treeRoot = TreeRoot.digest(layout, hasher, data, hash);
    if (MessageDigest.isEqual(treeRoot, rootHash)) {
      return new RootMismatch(Verdict.TOP_BLOCK_CORRUPT, treeRoot); // refused for its padding
    }
    byte[] topBlock = hashBlock(layout, hash, layout.levelStart(top));

    long children = layout.inputBlocks(top);
    long step = Math.max(1, Math.ceilDiv(children, MAX_CHILDREN));
    long matching = 0;
    long compared = 0;
    for (long c = 0; c < children; c += step) {
      compared++;
      if (matches(hasher, input(layout, data, hash, top, c), topBlock, layout.locate(top, c))) {
        matching++;
      }
    }
    boolean lowerMatch = false; // below the top's children, on the path of dataBlock
    for (int i = 0; i < top && !lowerMatch; i++) {
      HashLocation at = layout.locateForDataBlock(i, dataBlock);
      byte[] block = input(layout, data, hash, i, layout.indexOnPath(i, dataBlock));
      lowerMatch = matches(hasher, block, hashBlock(layout, hash, at.hashBlock()), at);
    }
    Verdict v =
        matching == compared
            ? Verdict.WRONG_ROOT_HASH
            : matching > 0 || lowerMatch ? Verdict.TOP_BLOCK_CORRUPT : Verdict.WRONG_PARAMETERS;
    return new RootMismatch(v, treeRoot);
  }

  /**
   * Input block {@code index} of {@code level}: a data block for level 0, else a hash block of the
   * level below.
   */
  private static byte[] input(
      MerkleLayout layout, BlockDevice data, BlockDevice hash, int level, long index)
      throws IOException {
    if (level > 0) {
      return hashBlock(layout, hash, layout.levelStart(level - 1) + index);
    }
    byte[] b = new byte[layout.dataBlockSize()];
    data.readFully(index * b.length, b, 0, b.length);
    return b;
  }

  private static byte[] hashBlock(MerkleLayout layout, BlockDevice hash, long block)
      throws IOException {
    byte[] b = new byte[layout.hashBlockSize()];
    hash.readFully(block * b.length, b, 0, b.length);
    return b;
  }

  private static boolean matches(BlockHasher hasher, byte[] block, byte[] parent, HashLocation at) {
    byte[] digest = hasher.hash(block, 0, block.length);
    return Arrays.equals(
        digest, 0, digest.length, parent, at.offset(), at.offset() + digest.length);
  }
}
