package org.jverity.tree;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.Arrays;
import org.jverity.hash.BlockHasher;
import org.jverity.internal.Parallel;
import org.jverity.io.BlockDevice;
import org.jverity.io.WritableDevice;

/**
 * Hashes the input blocks of one level and either writes the level's hash blocks (building) or
 * compares them with the stored ones (checking). One loop for both, as in cryptsetup's {@code
 * create_or_verify}, so the builder and the checker cannot drift apart; and one for both formats:
 * the {@link MerkleLayout} says where each digest goes, the {@link BlockHasher} how a block is
 * hashed, and a short last data block (fs-verity's) is hashed zero-padded.
 *
 * <p>Work is cut into tasks of whole output hash blocks, about {@link #TASK_INPUT_BYTES} of input
 * each, run on {@code threads} threads that each own their buffers: memory stays bounded whatever
 * the image size.
 */
public final class LevelPass {
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

  private final MerkleLayout layout;
  private final BlockHasher hasher; // copied for each worker: a hasher is not thread-safe
  private final int level;
  private final BlockDevice input;
  private final long inputOffset; // bytes, where input block 0 starts on the input device
  private final int inputBlockSize; // bytes
  private final long inputBlocks;
  private final long inputBytes; // the level's input; level 0's last block may be short (fs-verity)
  private final BlockDevice hashDevice;
  private final Mode mode;
  private final Findings findings;
  private final ProgressListener progress;
  private final int threads;

  LevelPass(
      MerkleLayout layout,
      BlockHasher hasher,
      int level,
      BlockDevice data,
      BlockDevice hashDevice,
      Mode mode,
      Findings findings,
      ProgressListener progress,
      int threads) {
    this.layout = layout;
    this.hasher = hasher;
    this.level = level;
    this.input = level == 0 ? data : hashDevice;
    this.inputOffset = level == 0 ? 0 : layout.levelStart(level - 1) * layout.hashBlockSize();
    this.inputBlockSize = layout.inputBlockSize(level);
    this.inputBlocks = layout.inputBlocks(level);
    this.inputBytes = level == 0 ? layout.dataSize() : inputBlocks * inputBlockSize;
    this.hashDevice = hashDevice;
    this.mode = mode;
    this.findings = findings;
    this.progress = progress;
    this.threads = threads;
    if (mode == Mode.WRITE && !(hashDevice instanceof WritableDevice)) {
      throw new IllegalArgumentException(hashDevice.description() + " is not writable");
    }
  }

  /**
   * Writes every level of the tree {@code layout} places on {@code hash}, bottom-up, each hashed on
   * {@code threads} threads; nothing when the tree has no levels.
   */
  public static void writeLevels(
      MerkleLayout layout,
      BlockHasher hasher,
      BlockDevice data,
      WritableDevice hash,
      ProgressListener progress,
      int threads)
      throws IOException {
    for (int level = 0; level < layout.levels(); level++) {
      new LevelPass(layout, hasher, level, data, hash, Mode.WRITE, null, progress, threads).run();
    }
  }

  void run() throws IOException {
    long outputBlocks = layout.levelBlocks(level);
    long inputPerOutputBlock =
        (long) layout.hashesPerBlock() * inputBlockSize; // <= 2^60: both at most 2^30
    int blocksPerTask =
        (int) Math.max(1, Math.min(outputBlocks, TASK_INPUT_BYTES / inputPerOutputBlock));
    long tasks = Math.ceilDiv(outputBlocks, blocksPerTask);
    Parallel.run(threads, tasks, () -> new Worker(blocksPerTask, outputBlocks)::run);
  }

  /** One thread's state: a hasher and its buffers. */
  private final class Worker {
    private final BlockHasher hasher;
    private final int blocksPerTask;
    private final long outputBlocks;
    // A chunk of input blocks, hashed where it was read. Direct when the native loop hashes: a file
    // is read into it with one copy and hashed in place. Else a heap array, into which a mapped
    // file is copied once (the JDK's digest would copy a direct buffer again, into its own array).
    private final ByteBuffer in;
    private final byte[] out; // the task's computed hash blocks
    private final byte[] stored; // the task's stored hash blocks (CHECK only)

    Worker(int blocksPerTask, long outputBlocks) {
      this.hasher = LevelPass.this.hasher.copy();
      this.blocksPerTask = blocksPerTask;
      this.outputBlocks = outputBlocks;
      long taskInput =
          Math.min(
              (long) blocksPerTask * layout.hashesPerBlock() * inputBlockSize,
              inputBlocks * inputBlockSize);
      int chunk = (int) Math.max(inputBlockSize, Math.min(CHUNK_BYTES, taskInput));
      int size = chunk - chunk % inputBlockSize;
      this.in = hasher.runsNatively() ? direct(size) : ByteBuffer.allocate(size);
      this.out = new byte[blocksPerTask * layout.hashBlockSize()];
      this.stored = mode == Mode.CHECK ? new byte[out.length] : null;
    }

    void run(long task) throws IOException {
      int hbs = layout.hashBlockSize();
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
        int bytes = (int) Math.min((long) n * inputBlockSize, inputBytes - x * inputBlockSize);
        input.readFully(inputOffset + x * inputBlockSize, in.clear().limit(bytes));
        zero(in.clear(), bytes, n * inputBlockSize); // the short last block, hashed as a whole one
        hashChunk(n, x, outBase, hbs);
        x += n;
      }

      long outOffset = outBase * hbs;
      if (mode == Mode.WRITE) {
        ((WritableDevice) hashDevice).writeFully(outOffset, ByteBuffer.wrap(out, 0, outBytes));
      } else {
        hashDevice.readFully(outOffset, stored, 0, outBytes);
        compare(firstOut, outCount, first);
      }
      progress.advanced(Math.min(end * inputBlockSize, inputBytes) - first * inputBlockSize);
    }

    /**
     * Hashes the chunk's {@code n} blocks, input blocks {@code x} on. A small loop of its own:
     * called once per chunk, the JIT compiles it within the first few megabytes, where a loop
     * inlined in a long task would wait for an on-stack replacement.
     */
    private void hashChunk(int n, long x, long outBase, int hbs) {
      int perBlock = layout.hashesPerBlock();
      // In runs that stay in one output hash block, where digests are a slot apart.
      for (int j = 0; j < n; ) {
        int run = (int) Math.min(n - j, perBlock - ((x + j) & (perBlock - 1)));
        hasher.hashBlocks(
            in,
            j * inputBlockSize,
            inputBlockSize,
            run,
            out,
            at(layout.locate(level, x + j), outBase, hbs),
            layout.slotSize());
        j += run;
      }
    }

    /**
     * Where in this task's buffers a digest sits, the buffers starting at hash block {@code
     * outBase}.
     */
    private int at(HashLocation loc, long outBase, int hbs) {
      return (int) ((loc.hashBlock() - outBase) * hbs) + loc.offset(); // < blocksPerTask * hbs
    }

    private void compare(long firstOut, int outCount, long first) {
      int hbs = layout.hashBlockSize();
      int perBlock = layout.hashesPerBlock();
      int digest = layout.digestSize();
      long outBase = layout.levelStart(level) + firstOut;
      for (int b = 0; b < outCount; b++) {
        int base = b * hbs;
        if (Arrays.equals(out, base, base + hbs, stored, base, base + hbs)) {
          continue; // the common case: every digest and every spare byte as expected
        }
        long firstInput = first + (long) b * perBlock;
        int used = layout.digestsIn(level, outBase + b);
        for (int s = 0; s < used; s++) {
          int at = at(layout.locate(level, firstInput + s), outBase, hbs);
          if (!Arrays.equals(out, at, at + digest, stored, at, at + digest)) {
            findings.digestMismatch(firstInput + s);
          }
        }
        if (!layout.hasZeroPadding(level, outBase + b, stored, base)) {
          findings.spareNotZero(firstOut + b);
        }
      }
    }
  }

  /**
   * A direct buffer of {@code size} bytes starting on a page. The kernel copies a read into some
   * misaligned buffers at a fraction of its speed: a 1 GiB format from /dev/shm spent 0.7-0.8 s of
   * system time reading into {@code allocateDirect}'s buffer as malloc placed it, 0.2-0.3 s into a
   * page-aligned one (2-core Xeon VM; {@code cat} takes 0.17 s).
   */
  private static ByteBuffer direct(int size) {
    // alignedSlice keeps whole pages only: room for them, and for the page lost to alignment.
    int pages = Math.ceilDiv(size, PAGE) * PAGE;
    return ByteBuffer.allocateDirect(pages + PAGE).alignedSlice(PAGE).limit(size).slice();
  }

  private static final int PAGE = 4096;

  private static void zero(ByteBuffer b, int from, int to) {
    for (int i = from; i < to; i += ZEROS.length) {
      b.put(i, ZEROS, 0, Math.min(ZEROS.length, to - i));
    }
  }
}
