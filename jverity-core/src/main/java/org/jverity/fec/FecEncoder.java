package org.jverity.fec;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.Optional;
import org.jverity.internal.Parallel;
import org.jverity.io.BlockDevice;
import org.jverity.io.WritableDevice;
import org.jverity.tree.ProgressListener;

/**
 * Computes and writes the Reed-Solomon parity of an image, byte for byte as {@code veritysetup
 * format --fec-device} does, over the {@link FecLayout} given.
 *
 * <p>Work is cut into tasks of consecutive rounds [r0, r1). Row i of those rounds is the run of
 * message blocks i·R + r0 … i·R + r1 − 1, consecutive on the device (a run may cross from the data
 * to the hash device, and past the message area into zeros), so a task reads each of its k rows
 * with one read and feeds them, two rows per pass, to (r1 − r0)·B codewords at once; it then writes
 * the parity of its rounds, contiguous on the FEC device, with one write. Every message block is
 * read exactly once. Tasks run on one platform thread per core, each with its own accumulators and
 * buffers: at most about {@link #TASK_BUDGET_BYTES} per thread, whatever the image size.
 *
 * <p>Hash-device blocks of the message area past the hash device's end (possible when the FEC area
 * sits on the hash device beyond it) read as zeros: they are a hole once the parity is written.
 *
 * <p>Immutable; each {@link #encode} call is independent and may run concurrently with others.
 */
public final class FecEncoder {
  /**
   * Bytes per task of parity accumulators, row buffer and parity output: small enough to stay in a
   * core's L2 cache (the accumulators are read and written once per two message bytes).
   */
  static final long TASK_BUDGET_BYTES = 2L << 20; // 2 MiB

  /** Tasks per thread at least, when the image has enough rounds: evens out the threads' shares. */
  static final int TASKS_PER_THREAD = 4;

  private final FecLayout layout;
  private final PackedInterleaved.Tables tables; // shared by the workers
  private final int threads;
  private final ProgressListener progress;

  private FecEncoder(FecLayout layout, int threads, ProgressListener progress) {
    this.layout = layout;
    this.tables = new PackedInterleaved.Tables(new ReedSolomon(layout.roots()));
    this.threads = threads;
    this.progress = progress;
  }

  /**
   * One line on which path the parity took in this process (the native loop or Java), for {@code
   * --debug}; empty when none was computed.
   */
  public static Optional<String> parityNote() {
    return NativeFec.note();
  }

  /** An encoder for {@code layout} using every core and reporting no progress. */
  public static FecEncoder of(FecLayout layout) {
    return new FecEncoder(
        layout, Runtime.getRuntime().availableProcessors(), ProgressListener.NONE);
  }

  public FecEncoder withThreads(int threads) {
    if (threads < 1) {
      throw new IllegalArgumentException("threads: " + threads + " (expected: at least 1)");
    }
    return new FecEncoder(layout, threads, progress);
  }

  /** {@code progress} is told the message bytes encoded (zeros past the message area included). */
  public FecEncoder withProgress(ProgressListener progress) {
    return new FecEncoder(layout, threads, progress);
  }

  public FecLayout layout() {
    return layout;
  }

  /** Bytes {@link #encode} feeds to the code: R·k blocks (the message area and its zero tail). */
  public long workBytes() {
    return layout.rounds() * layout.messageLength() * layout.blockSize();
  }

  /**
   * Rounds one task encodes: as many as fit {@link #TASK_BUDGET_BYTES}, then fewer to feed every
   * thread.
   */
  int roundsPerTask() {
    long b = layout.blockSize();
    long perRound =
        b * (Long.BYTES * Math.ceilDiv(layout.roots(), Long.BYTES) + 2 + layout.roots());
    long fit = Math.max(1, TASK_BUDGET_BYTES / perRound);
    long spread = Math.max(1, Math.ceilDiv(layout.rounds(), (long) threads * TASKS_PER_THREAD));
    return (int) Math.min(fit, spread); // <= TASK_BUDGET_BYTES / B, fits int
  }

  /**
   * Writes the parity at {@code layout.parityOffset(0)} on {@code fec}, {@code layout.paritySize()}
   * bytes. {@code fec} may be the hash device (the layout then ends the message area at the FEC
   * offset) or the data device; the caller checks that the FEC area overlaps neither.
   *
   * @throws java.io.EOFException if the data device is shorter than the data blocks
   */
  public void encode(BlockDevice data, BlockDevice hash, WritableDevice fec) throws IOException {
    long hashEnd = layout.hashBlocks() == 0 ? 0 : hash.size(); // bytes that exist; past them, zeros
    int perTask = roundsPerTask();
    long rounds = layout.rounds();
    long tasks = Math.ceilDiv(rounds, perTask);
    Parallel.run(
        "jverity-fec-", threads, tasks, () -> new Worker(perTask, data, hash, hashEnd, fec)::run);
    fec.flush();
  }

  /** One thread's accumulators and buffers; runs tasks one at a time. */
  private final class Worker {
    private final BlockDevice data;
    private final BlockDevice hash;
    private final long hashEnd; // bytes
    private final WritableDevice fec;
    private final int perTask; // rounds
    private final PackedInterleaved codewords;
    private final byte[] row; // two rows of the task's rounds: 2·(r1 − r0)·B message bytes
    private final byte[] parity; // the task's parity: (r1 − r0)·B·roots bytes

    Worker(int perTask, BlockDevice data, BlockDevice hash, long hashEnd, WritableDevice fec) {
      this.data = data;
      this.hash = hash;
      this.hashEnd = hashEnd;
      this.fec = fec;
      this.perTask = perTask;
      int width = perTask * layout.blockSize();
      this.codewords = new PackedInterleaved(tables, width);
      this.row = new byte[2 * width];
      this.parity = new byte[width * layout.roots()];
    }

    void run(long task) throws IOException {
      long r0 = task * perTask;
      int n = (int) Math.min(perTask, layout.rounds() - r0); // rounds in this task
      int b = layout.blockSize();
      PackedInterleaved cw = n == perTask ? codewords : new PackedInterleaved(tables, n * b);
      cw.reset();
      int k = layout.messageLength();
      int width = n * b;
      int i = 0;
      for (; i + 1 < k; i += 2) { // two rows per pass over the accumulators
        readRun(layout.messageIndex(r0, i), n, 0);
        readRun(layout.messageIndex(r0, i + 1), n, width);
        cw.feed2(row, 0, width);
      }
      if (i < k) {
        readRun(layout.messageIndex(r0, i), n, 0);
        cw.feed(row, 0);
      }
      int bytes = n * b * layout.roots();
      cw.parity(parity, 0);
      fec.writeFully(layout.parityOffset(r0), ByteBuffer.wrap(parity, 0, bytes));
      progress.advanced((long) n * b * layout.messageLength());
    }

    /**
     * Reads message blocks {@code m0 .. m0 + n − 1} into {@code row[base...]}: data, hash device,
     * zeros.
     */
    private void readRun(long m0, int n, int base) throws IOException {
      int b = layout.blockSize();
      long end = m0 + n;
      long dataEnd = Math.min(end, layout.dataBlocks());
      int at = base; // row is filled up to here
      if (m0 < dataEnd) {
        int len = (int) (dataEnd - m0) * b;
        data.readFully(m0 * b, row, base, len);
        at = base + len;
      }
      long first = Math.max(m0, layout.dataBlocks());
      long hashStop = Math.min(end, layout.messageBlocks());
      if (first < hashStop) {
        long from = layout.hashBlockOf(first) * b;
        int len = (int) (hashStop - first) * b;
        int present = (int) Math.max(0, Math.min(len, hashEnd - from));
        if (present > 0) {
          hash.readFully(from, row, at, present);
        }
        Arrays.fill(row, at + present, at + len, (byte) 0);
        at += len;
      }
      Arrays.fill(row, at, base + n * b, (byte) 0);
    }
  }
}
