package org.jverity.tree;

import java.io.IOException;
import org.jverity.format.VerityParams;
import org.jverity.hash.BlockHasher;
import org.jverity.io.BlockDevice;
import org.jverity.io.DeviceTooSmallException;

/** What the builder and the checker share: device size checks and the root digest. */
final class TreeWalker {
  private TreeWalker() {}

  static void requireDataSize(TreeGeometry g, BlockDevice data) throws IOException {
    long needed = g.params().dataSize();
    long size = data.size();
    if (size < needed) {
      throw new DeviceTooSmallException(
          "data (" + g.params().dataBlocks() + " blocks of " + g.params().dataBlockSize() + " bytes)",
          data.description(), size, needed);
    }
  }

  static void requireHashSize(TreeGeometry g, BlockDevice hash) throws IOException {
    // Without levels nothing is read from the hash device (the superblock, if any, is checked
    // where it is read); veritysetup does not size the device to hashDeviceSize() then.
    long needed = g.levels() == 0 ? 0 : g.hashDeviceSize();
    long size = hash.size();
    if (size < needed) {
      throw new DeviceTooSmallException("hash area (truncated?)", hash.description(), size, needed);
    }
  }

  /** The digest of the top hash block, or of data block 0 when the tree has no levels. */
  static byte[] rootDigest(TreeGeometry g, BlockDevice data, BlockDevice hash) throws IOException {
    VerityParams p = g.params();
    BlockHasher hasher = p.blockHasher();
    if (g.levels() == 0) {
      byte[] block = new byte[p.dataBlockSize()];
      data.readFully(0, block, 0, block.length);
      return hasher.hash(block, 0, block.length);
    }
    byte[] top = new byte[p.hashBlockSize()];
    hash.readFully(g.levelStart(g.levels() - 1) * p.hashBlockSize(), top, 0, top.length);
    return hasher.hash(top, 0, top.length);
  }

  static int defaultThreads() {
    return Runtime.getRuntime().availableProcessors();
  }
}
