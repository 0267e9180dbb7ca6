package org.jverity.fsverity;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.security.DigestException;
import java.security.MessageDigest;
import java.util.Arrays;
import org.jverity.internal.Parallel;
import org.jverity.io.BlockDevice;
import org.jverity.io.MemoryDevice;
import org.jverity.io.WritableDevice;
import org.jverity.tree.MerkleLayout;

/**
 * Computes a file's fs-verity Merkle tree, root hash and descriptor as {@code fsverity digest}
 * does, writing the tree (when asked) in its {@code --out-merkle-tree} layout: the top level at
 * offset 0, levels contiguous, level 0 last, digests packed, every hash block zero-padded.
 *
 * <p>Each level is hashed bottom-up on every core: work is cut into tasks of whole output hash
 * blocks, about {@link #TASK_INPUT_BYTES} of input each, and each thread owns a chunk buffer and
 * its task's output, so memory is a few MiB per thread whatever the file's size. The levels above
 * level 0 are read back from the tree; without a tree to write they live in memory, which is
 * 1/(fan-out − 1) of the file (0.8% with SHA-256 and 4 KiB blocks). Each call is independent; an
 * instance may be shared by threads.
 */
public final class FsVerityTreeBuilder {
  /** Input bytes per task: big enough to amortise a task, small enough to spread over cores. */
  static final long TASK_INPUT_BYTES = 4L << 20; // 4 MiB
  /** Bytes per read call; a chunk read stays in L2 until it is hashed. */
  static final int CHUNK_BYTES = 256 << 10; // 256 KiB
  private static final byte[] ZEROS = new byte[64 << 10];

  private final FsVerityParams params;
  private final byte[] paddedSalt; // the salt as hashed before every block
  private final int threads;

  private FsVerityTreeBuilder(FsVerityParams params, int threads) {
    this.params = params;
    byte[] salt = params.salt();
    int unit = params.algorithm().inputBlockSize();
    this.paddedSalt = salt.length == 0 ? salt : Arrays.copyOf(salt, Math.ceilDiv(salt.length, unit) * unit);
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
  public FsVerityDescriptor build(BlockDevice file, WritableDevice tree, long treeOffset) throws IOException {
    if (treeOffset < 0) {
      throw new IllegalArgumentException("tree offset: " + treeOffset + " (expected: >= 0)");
    }
    long size = file.size();
    MerkleLayout layout = layout(size);
    byte[] root;
    if (layout.dataBlocks() == 0) {
      root = new byte[params.algorithm().digestSize()]; // the empty file: no tree, zero root
    } else if (layout.levels() == 0) {
      root = hashOne(file, size); // one block: no tree
    } else {
      WritableDevice sink = tree != null ? tree : new MemoryDevice("merkle tree");
      long base = tree != null ? treeOffset : 0;
      for (int level = 0; level < layout.levels(); level++) {
        runLevel(layout, level, file, sink, base);
      }
      int bs = params.blockSize();
      byte[] top = new byte[bs];
      sink.readFully(base + layout.levelStart(layout.levels() - 1) * bs, top, 0, bs);
      root = newDigest().digest(top);
      if (tree != null) {
        tree.flush();
      }
    }
    return new FsVerityDescriptor(params, size, root);
  }

  /** The root of a one-block file: the padded salt, the block, zeros to the block size. */
  private byte[] hashOne(BlockDevice file, long size) throws IOException {
    byte[] block = new byte[params.blockSize()];
    file.readFully(0, block, 0, (int) size); // size <= blockSize
    return newDigest().digest(block);
  }

  /** A digest that has consumed the padded salt. */
  private MessageDigest newDigest() {
    MessageDigest d = params.algorithm().newDigest();
    d.update(paddedSalt);
    return d;
  }

  private void runLevel(MerkleLayout layout, int level, BlockDevice file, WritableDevice tree, long base)
      throws IOException {
    long outputBlocks = layout.levelBlocks(level);
    long inputPerOutputBlock = (long) layout.hashesPerBlock() * params.blockSize();
    int blocksPerTask = (int) Math.max(1, Math.min(outputBlocks, TASK_INPUT_BYTES / inputPerOutputBlock));
    long tasks = Math.ceilDiv(outputBlocks, blocksPerTask);
    BlockDevice input = level == 0 ? file : tree;
    Parallel.run("jverity-fsverity-", threads, tasks, () -> new Worker(layout, level, input, tree, base, blocksPerTask)::run);
  }

  /** One thread's state for one level: a digest, a chunk buffer and a task's output blocks. */
  private final class Worker {
    private final MerkleLayout layout;
    private final int level;
    private final BlockDevice input;
    private final WritableDevice tree;
    private final long base; // bytes, where the tree starts on its device
    private final int blocksPerTask;
    private final long inputBytes; // bytes of the level's input; level 0's last block may be short
    private final MessageDigest digest;
    private final int digestSize; // bytes
    private final byte[] in; // a chunk of input
    private final byte[] out; // the task's hash blocks

    Worker(MerkleLayout layout, int level, BlockDevice input, WritableDevice tree, long base, int blocksPerTask) {
      this.layout = layout;
      this.base = base;
      this.level = level;
      this.input = input;
      this.tree = tree;
      this.blocksPerTask = blocksPerTask;
      int bs = params.blockSize();
      this.inputBytes = level == 0 ? layout.dataSize() : layout.inputBlocks(level) * bs;
      this.digest = params.algorithm().newDigest();
      this.digestSize = digest.getDigestLength();
      long taskInput = Math.min((long) blocksPerTask * layout.hashesPerBlock() * bs, inputBytes);
      // Any size works: blocks may straddle chunks, and a block bigger than a chunk is hashed piecewise.
      this.in = new byte[(int) Math.max(1, Math.min(CHUNK_BYTES, taskInput))];
      this.out = new byte[blocksPerTask * bs];
    }

    void run(long task) throws IOException {
      int bs = params.blockSize();
      int bits = layout.hashesPerBlockBits();
      long outputBlocks = layout.levelBlocks(level);
      long firstOut = task * blocksPerTask;
      int outCount = (int) Math.min(blocksPerTask, outputBlocks - firstOut);
      Arrays.fill(out, 0, outCount * bs, (byte) 0);
      long first = firstOut << bits; // input block
      long end = Math.min((firstOut + outCount) << bits, layout.inputBlocks(level));
      long pos = first * bs; // bytes into the level's input
      long stop = Math.min(end * bs, inputBytes);
      long inputBase = level == 0 ? 0 : base + layout.levelStart(level - 1) * bs;
      int at = 0; // where the next digest goes in out
      int inBlock = 0; // bytes of the current block hashed so far
      digest.update(paddedSalt);
      while (pos < stop) {
        int n = (int) Math.min(in.length, stop - pos);
        input.readFully(inputBase + pos, in, 0, n);
        int from = 0;
        if (inBlock > 0) { // finish a block begun in the last chunk
          int take = Math.min(n, bs - inBlock);
          digest.update(in, 0, take);
          from = take;
          inBlock += take;
          if (inBlock == bs) {
            finish(at);
            at += digestSize;
            inBlock = 0;
            digest.update(paddedSalt);
          }
        }
        int whole = (n - from) / bs;
        at = hashBlocks(digest, paddedSalt, in, from, whole, bs, out, at);
        from += whole * bs;
        if (from < n) { // a block that goes on in the next chunk (or level 0's short last block)
          digest.update(in, from, n - from);
          inBlock = n - from;
        }
        pos += n;
      }
      if (inBlock > 0) { // level 0's short last block, zero-padded
        for (int left = bs - inBlock; left > 0; ) {
          int z = Math.min(left, ZEROS.length);
          digest.update(ZEROS, 0, z);
          left -= z;
        }
        finish(at);
      } else {
        digest.reset();
      }
      tree.writeFully(base + (layout.levelStart(level) + firstOut) * bs, ByteBuffer.wrap(out, 0, outCount * bs));
    }

    private void finish(int at) {
      try {
        digest.digest(out, at, digestSize);
      } catch (DigestException e) {
        throw new IllegalStateException("no room for a digest at " + at, e); // out holds every digest of the task
      }
    }

  /**
   * Hashes {@code count} whole blocks of {@code chunk} from {@code from}, the digest already holding
   * the salt, writing each digest at {@code at} in {@code out}; returns where the next one goes. A
   * small static loop of its own: it is called once per chunk, so the JIT compiles it within the
   * first few megabytes, where a loop inlined in a long task would wait for an on-stack replacement.
   */
  static int hashBlocks(MessageDigest digest, byte[] salt, byte[] chunk, int from, int count, int blockSize,
      byte[] out, int at) {
    int size = digest.getDigestLength();
    try {
      for (int i = 0; i < count; i++) {
        digest.update(chunk, from + i * blockSize, blockSize);
        digest.digest(out, at, size);
        at += size;
        digest.update(salt);
      }
    } catch (DigestException e) {
      throw new IllegalStateException("no room for a digest at " + at, e); // out holds every digest of the task
    }
    return at;
  }
  }
}
