package org.jverity.fsverity;

import java.io.IOException;
import java.nio.ByteBuffer;
import org.jverity.hash.BlockHasher;
import org.jverity.io.BlockDevice;
import org.jverity.io.MemoryDevice;
import org.jverity.io.WritableDevice;
import org.jverity.tree.LevelPass;
import org.jverity.tree.MerkleLayout;
import org.jverity.tree.ProgressListener;
import org.jverity.tree.TreeRoot;

/**
 * Computes a file's fs-verity Merkle tree, root hash and descriptor as {@code fsverity digest}
 * does, writing the tree (when asked) in its {@code --out-merkle-tree} layout: the top level at
 * offset 0, levels contiguous, level 0 last, digests packed, every hash block zero-padded.
 *
 * <p>The tree is {@link MerkleLayout#fsVerity}'s, hashed as {@link BlockHasher#fsVerity} says, by
 * the loop that builds dm-verity's ({@link LevelPass}): each level bottom-up on every core, a few
 * MiB per thread whatever the file's size. The levels above level 0 are read back from the tree;
 * without a tree to write they live in memory, which is 1/(fan-out − 1) of the file (0.8% with
 * SHA-256 and 4 KiB blocks). Each call is independent; an instance may be shared by threads.
 */
public final class FsVerityTreeBuilder {
  private final FsVerityParams params;
  private final int threads;

  private FsVerityTreeBuilder(FsVerityParams params, int threads) {
    this.params = params;
    this.threads = threads;
  }

  /** A builder for {@code params} using every core. */
  public static FsVerityTreeBuilder of(FsVerityParams params) {
    return new FsVerityTreeBuilder(params, Runtime.getRuntime().availableProcessors());
  }

  public FsVerityTreeBuilder withThreads(int threads) {
    if (threads < 1) {
      throw new IllegalArgumentException("threads: " + threads + " (expected: at least 1)");
    }
    return new FsVerityTreeBuilder(params, threads);
  }

  public FsVerityParams params() {
    return params;
  }

  /** The tree's geometry for a file of {@code size} bytes. */
  public MerkleLayout layout(long size) {
    return MerkleLayout.fsVerity(params.algorithm(), params.blockSize(), size);
  }

  /** Hashes {@code file} without keeping its tree, and returns its descriptor. */
  public FsVerityDescriptor digest(BlockDevice file) throws IOException {
    return build(file, null);
  }

  /**
   * Hashes {@code file}, writes its Merkle tree to {@code tree} from offset 0 (unless null; an
   * empty or one-block file has no tree, so nothing is written) and returns its descriptor, whose
   * {@link FsVerityDescriptor#digest()} is the file digest. The tree device is not truncated.
   */
  public FsVerityDescriptor build(BlockDevice file, WritableDevice tree) throws IOException {
    return build(file, tree, 0);
  }

  /**
   * As {@link #build(BlockDevice, WritableDevice)}, the tree starting at byte {@code treeOffset} of
   * {@code tree}: {@code fsverity digest} given several files writes their trees one after another.
   */
  public FsVerityDescriptor build(BlockDevice file, WritableDevice tree, long treeOffset)
      throws IOException {
    if (treeOffset < 0) {
      throw new IllegalArgumentException("tree offset: " + treeOffset + " (expected: >= 0)");
    }
    long size = file.size();
    MerkleLayout layout = layout(size);
    BlockHasher hasher = BlockHasher.fsVerity(params.algorithm(), params.salt());
    WritableDevice sink = null; // no levels (an empty or one-block file): no tree
    if (layout.levels() > 0) {
      sink =
          tree == null
              ? new MemoryDevice("merkle tree")
              : treeOffset == 0 ? tree : new Shifted(tree, treeOffset);
      LevelPass.writeLevels(layout, hasher, file, sink, ProgressListener.NONE, threads);
      if (tree != null) {
        tree.flush();
      }
    }
    return new FsVerityDescriptor(params, size, TreeRoot.digest(layout, hasher, file, sink));
  }

  /** {@code device} from byte {@code base} on: one file's tree among several in one output. */
  private record Shifted(WritableDevice device, long base) implements WritableDevice {
    @Override
    public String description() {
      return device.description();
    }

    @Override
    public long size() throws IOException {
      return Math.max(0, device.size() - base);
    }

    @Override
    public void readFully(long offset, ByteBuffer dst) throws IOException {
      device.readFully(base + offset, dst);
    }

    @Override
    public void writeFully(long offset, ByteBuffer src) throws IOException {
      device.writeFully(base + offset, src);
    }

    @Override
    public void flush() throws IOException {
      device.flush();
    }

    @Override
    public void close() {} // the caller's device, closed by the caller
  }
}
