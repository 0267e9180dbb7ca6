package org.jverity.verify;

import org.jverity.format.Hex;
import org.jverity.hash.BlockHasher;
import org.jverity.io.BlockDevice;
import org.jverity.tree.MerkleLayout;

/**
 * What a cached hash block means, and so which readers may share it ({@link CacheSpace}): a block
 * is found by its index, and what the bytes at that index are, what they cover and what they are
 * verified against depends on every field here. Two readers share blocks and verified marks only
 * when all agree; a reader whose parameters do not verify against its root hash cannot borrow the
 * blocks of one whose parameters do.
 *
 * @param hashDevice names the device the blocks are read from
 * @param hashBlockSize bytes per hash block: an index is a byte offset only with it
 * @param dataBlockSize bytes per data block: what a level-0 digest covers
 * @param digestSize bytes per digest (the algorithm's)
 * @param slotSize bytes from one digest to the next in a hash block (format 0 packs them, format 1
 *     pads each to a power of two)
 * @param dataSize bytes of data covered: the number of leaves, and so the tree's shape
 * @param tree the levels and where each starts on the device, in hash blocks (from the hash offset
 *     and superblock)
 * @param hasher the algorithm, the salt and where it goes (before the block in format 1, after it
 *     in format 0)
 * @param rootHash the trusted root, in hex
 */
record SpaceKey(
    String hashDevice,
    int hashBlockSize,
    int dataBlockSize,
    int digestSize,
    int slotSize,
    long dataSize,
    String tree,
    String hasher,
    String rootHash) {

  static SpaceKey of(BlockDevice hash, MerkleLayout layout, BlockHasher hasher, byte[] rootHash) {
    return new SpaceKey(
        hash.description(),
        layout.hashBlockSize(),
        layout.dataBlockSize(),
        layout.digestSize(),
        layout.slotSize(),
        layout.dataSize(),
        layout.toString(),
        hasher.describe(),
        Hex.format(rootHash));
  }

  // equals and hashCode written out: a record's own are bound through ObjectMethods' bootstrap at
  // their first call, which the AOT cache does not hold: ~10 ms of a fresh server's start.

  @Override
  public boolean equals(Object o) {
    return o instanceof SpaceKey k
        && hashBlockSize == k.hashBlockSize
        && dataBlockSize == k.dataBlockSize
        && digestSize == k.digestSize
        && slotSize == k.slotSize
        && dataSize == k.dataSize
        && hashDevice.equals(k.hashDevice)
        && tree.equals(k.tree)
        && hasher.equals(k.hasher)
        && rootHash.equals(k.rootHash);
  }

  @Override
  public int hashCode() {
    int h = hashDevice.hashCode();
    h = 31 * h + hashBlockSize;
    h = 31 * h + dataBlockSize;
    h = 31 * h + digestSize;
    h = 31 * h + slotSize;
    h = 31 * h + Long.hashCode(dataSize);
    h = 31 * h + tree.hashCode();
    h = 31 * h + hasher.hashCode();
    return 31 * h + rootHash.hashCode();
  }
}
