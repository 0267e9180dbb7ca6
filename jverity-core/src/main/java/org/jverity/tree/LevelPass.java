package org.jverity.tree;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.Arrays;
import org.jverity.format.VerityParams;
import org.jverity.hash.BlockHasher;
import org.jverity.io.BlockDevice;
import org.jverity.internal.Parallel;
import org.jverity.io.WritableDevice;

/**
 * Hashes the input blocks of one level and either writes the level's hash blocks (building) or
 * compares them with the stored ones (checking). One loop for both, as in cryptsetup's
 * {@code create_or_verify}, so the builder and the checker cannot drift apart.
 *
 * <p>Work is cut into tasks of whole output hash blocks, about {@link #TASK_INPUT_BYTES} of input
 * each, run on {@code threads} threads that each own their buffers: memory stays bounded whatever
 * the image size.
 */
final class LevelPass {
  /** Input bytes per task: big enough to amortise a task, small enough to spread over cores. */
  static final long TASK_INPUT_BYTES = 4L << 20; // 4 MiB
  /** Input bytes per read call. */
  static final int CHUNK_BYTES = 128 << 10; // bytes; a chunk read stays in L2 until it is hashed

  enum Mode {
    WRITE,
    CHECK
  }

  /** What a check finds; called from worker threads, so implementations must be thread-safe. */
  interface Findings {
    /** Input block {@code index} of the level does not hash to the digest stored for it. */
    void digestMismatch(long index);

    /** Hash block {@code index} of the level (from the level's start) has non-zero spare bytes. */
    void spareNotZero(long index);
  }

  private static final byte[] ZEROS = new byte[4096];

  private final TreeGeometry geometry;
  private final MerkleLayout layout;
  private final int level;
  private final BlockDevice input;
  private final long inputOffset; // bytes, where input block 0 starts on the input device
  private final int inputBlockSize; // bytes
  private final long inputBlocks;
  private final BlockDevice hashDevice;
  private final Mode mode;
  private final Findings findings;
  private final ProgressListener progress;
  private final int threads;

  LevelPass(
      TreeGeometry geometry,
      int level,
      BlockDevice data,
      BlockDevice hashDevice,
      Mode mode,
      Findings findings,
      ProgressListener progress,
      int threads) {
    VerityParams p = geometry.params();
    this.geometry = geometry;
    this.layout = geometry.layout();
    this.level = level;
    if (level == 0) {
      this.input = data;
      this.inputOffset = 0;
      this.inputBlockSize = p.dataBlockSize();
    } else {
      this.input = hashDevice;
      this.inputOffset = geometry.levelStart(level - 1) * p.hashBlockSize();
      this.inputBlockSize = p.hashBlockSize();
    }
    this.inputBlocks = geometry.inputBlocks(level);
    this.hashDevice = hashDevice;
    this.mode = mode;
    this.findings = findings;
    this.progress = progress;
    this.threads = threads;
    if (mode == Mode.WRITE && !(hashDevice instanceof WritableDevice)) {
      throw new IllegalArgumentException(hashDevice.description() + " is not writable");
    }
  }

  void run() throws IOException {
    long outputBlocks = geometry.levelBlocks(level);
    long inputPerOutputBlock = (long) geometry.hashesPerBlock() * inputBlockSize; // <= 2^33
    int blocksPerTask = (int) Math.max(1, Math.min(outputBlocks, TASK_INPUT_BYTES / inputPerOutputBlock));
    long tasks = Math.ceilDiv(outputBlocks, blocksPerTask);
    Parallel.run(threads, tasks, () -> new Worker(blocksPerTask, outputBlocks)::run);
  }

  /** One thread's state: a hasher and its buffers. */
  private final class Worker {
    private final BlockHasher hasher;
    private final int blocksPerTask;
    private final long outputBlocks;
    private final ByteBuffer in; // a chunk of input blocks, read straight from the kernel
    private final byte[] out; // the task's computed hash blocks
    private final byte[] stored; // the task's stored hash blocks (CHECK only)

    Worker(int blocksPerTask, long outputBlocks) {
      VerityParams p = geometry.params();
      this.hasher = p.blockHasher();
      this.blocksPerTask = blocksPerTask;
      this.outputBlocks = outputBlocks;
      long taskInput = Math.min(
          (long) blocksPerTask * geometry.hashesPerBlock() * inputBlockSize,
          inputBlocks * inputBlockSize);
      int chunk = (int) Math.max(inputBlockSize, Math.min(CHUNK_BYTES, taskInput));
      this.in = ByteBuffer.allocateDirect(chunk - chunk % inputBlockSize);
      this.out = new byte[blocksPerTask * p.hashBlockSize()];
      this.stored = mode == Mode.CHECK ? new byte[out.length] : null;
    }

    void run(long task) throws IOException {
      int hbs = geometry.params().hashBlockSize();
      int bits = layout.hashesPerBlockBits();
      long firstOut = task * blocksPerTask;
      int outCount = (int) Math.min(blocksPerTask, outputBlocks - firstOut);
      int outBytes = outCount * hbs;
      Arrays.fill(out, 0, outBytes, (byte) 0);

      long first = firstOut << bits;
      long end = Math.min((firstOut + outCount) << bits, inputBlocks);
      long outBase = layout.levelStart(level) + firstOut; // hash block of out[0]
      int chunkBlocks = in.capacity() / inputBlockSize;
      for (long x = first; x < end; ) {
        int n = (int) Math.min(chunkBlocks, end - x);
        in.clear().limit(n * inputBlockSize);
        input.readFully(inputOffset + x * inputBlockSize, in);
        for (int j = 0; j < n; j++) {
          in.limit((j + 1) * inputBlockSize).position(j * inputBlockSize);
          hasher.hash(in, out, at(layout.locate(level, x + j), outBase, hbs));
        }
        x += n;
      }

      long outOffset = outBase * hbs;
      if (mode == Mode.WRITE) {
        ((WritableDevice) hashDevice).writeFully(outOffset, ByteBuffer.wrap(out, 0, outBytes));
      } else {
        hashDevice.readFully(outOffset, stored, 0, outBytes);
        compare(firstOut, outCount, first, end);
      }
      progress.advanced((end - first) * inputBlockSize);
    }

    /** Where in this task's buffers a digest sits, the buffers starting at hash block {@code outBase}. */
    private int at(HashLocation loc, long outBase, int hbs) {
      return (int) ((loc.hashBlock() - outBase) * hbs) + loc.offset(); // < blocksPerTask * hbs
    }

    private void compare(long firstOut, int outCount, long first, long end) {
      int hbs = geometry.params().hashBlockSize();
      int perBlock = layout.hashesPerBlock();
      int digest = layout.digestSize();
      long outBase = layout.levelStart(level) + firstOut;
      for (int b = 0; b < outCount; b++) {
        int base = b * hbs;
        if (Arrays.equals(out, base, base + hbs, stored, base, base + hbs)) {
          continue; // the common case: every digest and every spare byte as expected
        }
        long firstInput = first + (long) b * perBlock;
        int used = (int) Math.min(perBlock, end - firstInput);
        boolean spareDirty = false;
        for (int s = 0; s < used; s++) {
          int at = at(layout.locate(level, firstInput + s), outBase, hbs);
          if (!Arrays.equals(out, at, at + digest, stored, at, at + digest)) {
            findings.digestMismatch(firstInput + s);
          }
          spareDirty |= !isZero(stored, at + digest, at + layout.slotSize());
        }
        spareDirty |= !isZero(stored, base + used * layout.slotSize(), base + hbs);
        if (spareDirty) {
          findings.spareNotZero(firstOut + b);
        }
      }
    }
  }

  static boolean isZero(byte[] a, int from, int to) {
    for (int i = from; i < to; i += ZEROS.length) {
      int n = Math.min(ZEROS.length, to - i);
      if (!Arrays.equals(a, i, i + n, ZEROS, 0, n)) {
        return false;
      }
    }
    return true;
  }
}
