package org.jverity.tree;

import java.io.IOException;
import java.nio.ByteBuffer;
import org.jverity.hash.BlockHasher;
import org.jverity.io.BlockDevice;
import org.jverity.io.DeviceTooSmallException;

/**
 * What a tree asks of its devices before anything is read, and the digest its root gives: the
 * builder, the checker, the verified reader and fs-verity's descriptor all come here, so the two
 * formats' rules for the root (no tree for one block, the zero root of the empty file) are said
 * once.
 */
public final class TreeRoot {
  /** How the hash device is named when it is shorter than the tree. */
  public static final String HASH_AREA = "hash area (truncated?)";

  private TreeRoot() {}

  /** The data as veritysetup's sizes name it: "data (N blocks of M bytes)". */
  public static String dataBlocks(MerkleLayout layout) {
    return "data (" + layout.dataBlocks() + " blocks of " + layout.dataBlockSize() + " bytes)";
  }

  /**
   * Throws unless {@code data} holds the bytes the tree covers and {@code hash} the tree itself.
   * Without levels nothing is read from the hash device, so it needs no size then (veritysetup does
   * not size it either; a superblock is checked where it is read).
   *
   * @param dataName names the data in the message, e.g. {@link #dataBlocks}
   * @param hashName names the hash device in the message, e.g. {@link #HASH_AREA}
   */
  public static void requireDevices(
      MerkleLayout layout, BlockDevice data, String dataName, BlockDevice hash, String hashName)
      throws IOException {
    requireSize(layout.dataSize(), dataName, data.description(), data.size());
    requireSize(
        layout.levels() == 0 ? 0 : layout.hashDeviceSize(),
        hashName,
        hash.description(),
        hash.size());
  }

  /**
   * Throws unless a device of {@code size} bytes holds {@code needed}: the one check, for callers
   * that know a size before they open the device.
   */
  public static void requireSize(long needed, String what, String device, long size)
      throws DeviceTooSmallException {
    if (size < needed) {
      throw new DeviceTooSmallException(what, device, size, needed);
    }
  }

  /**
   * The root hash the devices give: the digest of the top hash block; of data block 0, zero-padded,
   * when the tree has no levels; all zeros when there is no data (fs-verity's empty file). Trusted
   * for nothing: it is what must be compared with the root hash given.
   */
  public static byte[] digest(
      MerkleLayout layout, BlockHasher hasher, BlockDevice data, BlockDevice hash)
      throws IOException {
    if (layout.dataBlocks() == 0) {
      return new byte[layout.digestSize()];
    }
    byte[] block;
    if (layout.levels() == 0) {
      block =
          new byte
              [layout.dataBlockSize()]; // a one-block fs-verity file may be shorter than a block
      data.readFully(0, ByteBuffer.wrap(block, 0, (int) Math.min(block.length, layout.dataSize())));
    } else {
      block = new byte[layout.hashBlockSize()];
      hash.readFully(layout.levelStart(layout.levels() - 1) * block.length, block, 0, block.length);
    }
    // A run of one block: the native loop when it is there, so that a one-shot command need not
    // start the JDK's digests for this one block.
    byte[] root = new byte[hasher.digestSize()];
    hasher.hashBlocks(block, 0, block.length, 1, root, 0, root.length);
    return root;
  }
}
