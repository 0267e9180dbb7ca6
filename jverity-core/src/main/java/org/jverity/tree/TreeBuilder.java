package org.jverity.tree;

import java.io.IOException;
import java.nio.ByteBuffer;
import org.jverity.format.VerityParams;
import org.jverity.format.VeritySuperblock;
import org.jverity.hash.BlockHasher;
import org.jverity.io.BlockDevice;
import org.jverity.io.WritableDevice;

/**
 * Builds a dm-verity hash tree exactly as {@code veritysetup format} does: superblock (unless
 * disabled), then the levels bottom-up, each hashed in parallel. Memory is a few MiB per thread
 * whatever the image size. Each call is independent; an instance may be shared by threads.
 */
public final class TreeBuilder {
  /**
   * Bytes veritysetup writes for the superblock at most: one page, or less with smaller hash
   * blocks.
   */
  static final int SUPERBLOCK_IO_BLOCK = 4096;

  private final VerityParams params;
  private final MerkleLayout layout;
  private final int threads;
  private final ProgressListener progress;

  private TreeBuilder(
      VerityParams params, MerkleLayout layout, int threads, ProgressListener progress) {
    this.params = params;
    this.layout = layout;
    this.threads = threads;
    this.progress = progress;
  }

  /** A builder for {@code params} using every core and reporting no progress. */
  public static TreeBuilder of(VerityParams params) {
    return new TreeBuilder(
        params, MerkleLayout.dmVerity(params), defaultThreads(), ProgressListener.NONE);
  }

  /** Hashing threads when none are asked for: one per core. */
  static int defaultThreads() {
    return Runtime.getRuntime().availableProcessors();
  }

  public TreeBuilder withThreads(int threads) {
    if (threads < 1) {
      throw new IllegalArgumentException("threads: " + threads + " (expected: at least 1)");
    }
    return new TreeBuilder(params, layout, threads, progress);
  }

  public TreeBuilder withProgress(ProgressListener progress) {
    return new TreeBuilder(params, layout, threads, progress);
  }

  /** Where the tree goes on the hash device. */
  public MerkleLayout layout() {
    return layout;
  }

  /** Input bytes a build hashes: every data block and every hash block below the top. */
  public long workBytes() {
    long hashInput = layout.hashBlocks() - (layout.levels() > 0 ? 1 : 0);
    return layout.dataSize() + hashInput * layout.hashBlockSize();
  }

  /**
   * Writes the superblock (if the parameters ask for one) and every level, and returns the root
   * hash. The hash device grows as needed and is never truncated.
   *
   * @throws org.jverity.io.DeviceTooSmallException if the data device is shorter than the data
   *     blocks
   */
  public byte[] build(BlockDevice data, WritableDevice hash) throws IOException {
    TreeRoot.requireSize(
        layout.dataSize(), TreeRoot.dataBlocks(layout), data.description(), data.size());
    BlockHasher hasher = params.blockHasher();
    if (params.superblock()) {
      hash.writeFully(params.hashOffset(), ByteBuffer.wrap(VeritySuperblock.of(params).encode()));
    }
    LevelPass.writeLevels(layout, hasher, data, hash, progress, threads);
    if (layout.levels() == 0 && params.superblock()) {
      // No tree (one data block): veritysetup writes the superblock as one I/O block of
      // min(hash block size, 4 KiB) and nothing else, so the file ends there, not at
      // hashDeviceSize(); without a superblock it writes nothing at all.
      long end = params.hashOffset() + Math.min(params.hashBlockSize(), SUPERBLOCK_IO_BLOCK);
      if (hash.size() < end) {
        hash.writeFully(end - 1, ByteBuffer.wrap(new byte[1]));
      }
    }
    hash.flush();
    return TreeRoot.digest(layout, hasher, data, hash);
  }
}
