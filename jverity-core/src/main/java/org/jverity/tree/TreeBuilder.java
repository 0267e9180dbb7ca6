package org.jverity.tree;

import java.io.IOException;
import java.nio.ByteBuffer;
import org.jverity.format.VerityParams;
import org.jverity.format.VeritySuperblock;
import org.jverity.io.BlockDevice;
import org.jverity.io.WritableDevice;

/**
 * Builds a dm-verity hash tree exactly as {@code veritysetup format} does: superblock (unless
 * disabled), then the levels bottom-up, each hashed in parallel. Memory is a few MiB per thread
 * whatever the image size. Each call is independent; an instance may be shared by threads.
 */
public final class TreeBuilder {
  /** Bytes veritysetup writes for the superblock at most: one page, or less with smaller hash blocks. */
  static final int SUPERBLOCK_IO_BLOCK = 4096;

  private final TreeGeometry geometry;
  private final int threads;
  private final ProgressListener progress;

  private TreeBuilder(TreeGeometry geometry, int threads, ProgressListener progress) {
    this.geometry = geometry;
    this.threads = threads;
    this.progress = progress;
  }

  /** A builder for {@code params} using every core and reporting no progress. */
  public static TreeBuilder of(VerityParams params) {
    return new TreeBuilder(TreeGeometry.of(params), TreeWalker.defaultThreads(), ProgressListener.NONE);
  }

  public TreeBuilder withThreads(int threads) {
    if (threads < 1) {
      throw new IllegalArgumentException("threads: " + threads + " (expected: at least 1)");
    }
    return new TreeBuilder(geometry, threads, progress);
  }

  public TreeBuilder withProgress(ProgressListener progress) {
    return new TreeBuilder(geometry, threads, progress);
  }

  public TreeGeometry geometry() {
    return geometry;
  }

  /** Input bytes a build hashes: every data block and every hash block below the top. */
  public long workBytes() {
    VerityParams p = geometry.params();
    long hashInput = geometry.hashBlocks() - (geometry.levels() > 0 ? 1 : 0);
    return p.dataSize() + hashInput * p.hashBlockSize();
  }

  /**
   * Writes the superblock (if the parameters ask for one) and every level, and returns the root
   * hash. The hash device grows as needed and is never truncated.
   *
   * @throws org.jverity.io.DeviceTooSmallException if the data device is shorter than the data
   *     blocks
   */
  public byte[] build(BlockDevice data, WritableDevice hash) throws IOException {
    VerityParams p = geometry.params();
    TreeWalker.requireDataSize(geometry, data);
    if (p.superblock()) {
      hash.writeFully(p.hashOffset(), ByteBuffer.wrap(VeritySuperblock.of(p).encode()));
    }
    for (int level = 0; level < geometry.levels(); level++) {
      new LevelPass(geometry, level, data, hash, LevelPass.Mode.WRITE, null, progress, threads).run();
    }
    if (geometry.levels() == 0 && p.superblock()) {
      // No tree (one data block): veritysetup writes the superblock as one I/O block of
      // min(hash block size, 4 KiB) and nothing else, so the file ends there, not at
      // hashDeviceSize(); without a superblock it writes nothing at all.
      long end = p.hashOffset() + Math.min(p.hashBlockSize(), SUPERBLOCK_IO_BLOCK);
      if (hash.size() < end) {
        hash.writeFully(end - 1, ByteBuffer.wrap(new byte[1]));
      }
    }
    hash.flush();
    return TreeWalker.rootDigest(geometry, data, hash);
  }
}
