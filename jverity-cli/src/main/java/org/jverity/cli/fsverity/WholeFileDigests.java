package org.jverity.cli.fsverity;

import java.io.FileInputStream;
import java.io.FileNotFoundException;
import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import org.jverity.fsverity.FsVerityDescriptor;
import org.jverity.fsverity.FsVerityParams;
import org.jverity.fsverity.SmallFileBatch;
import org.jverity.fsverity.SmallFileDigester;
import org.jverity.io.WholeFileRead;

/**
 * One hashing thread's digests of small local files, each read whole into a buffer kept from file
 * to file and hashed in memory: one open, a read or two and a close a file, nothing allocated but
 * the result. A file of up to a hash block's worth of blocks goes into a {@link SmallFileBatch}
 * with the files after it, hashed together so that blocks pair across files ({@link #batch}); a
 * larger one is hashed alone ({@link SmallFileDigester}). Not thread-safe: one per thread.
 */
final class WholeFileDigests {
  /** Files up to this size (by the walk's or a stat's count) are read whole. */
  static final int LIMIT = 1 << 20; // bytes

  /** Larger blocks than this take the device path: a buffer of one block would be too big. */
  static final int MAX_BLOCK_SIZE = 64 << 10; // bytes

  /** What the JDK's native read copies through a buffer on its stack, allocating nothing. */
  private static final int READ_AFTER = 8192; // bytes

  /** Bytes of files hashed together at most; a batch of files of a few KiB holds ~100 of them. */
  static final int BATCH_BYTES = 1 << 20;

  /** Files hashed together at most. */
  static final int BATCH_FILES = 256;

  private final SmallFileDigester digester;
  private final SmallFileBatch batch;
  private final byte[] bytes; // a whole file and its last block's padding

  WholeFileDigests(FsVerityParams params) {
    this.digester = new SmallFileDigester(params);
    this.batch = new SmallFileBatch(params, BATCH_BYTES, BATCH_FILES);
    this.bytes = new byte[LIMIT + params.blockSize()]; // LIMIT is a multiple of any block size
  }

  /** This thread's batch: empty between the batches of files a caller hashes. */
  SmallFileBatch batch() {
    return batch;
  }

  /**
   * Reads {@code file}, of about {@code expected} bytes, into {@link #batch()} and returns its
   * index there; -1 when it is not for a batch, or turns out not to fit what the batch has left (it
   * grew since its size was taken), for the caller to hash it another way (after hashing the batch,
   * if that is why). Reads as {@link #digest} does.
   */
  int addToBatch(Path file, long expected) throws IOException {
    if (!batch.fits(Math.max(0, expected))) {
      return -1;
    }
    int length = readWhole(file, expected, batch.buffer(), batch.end(), batch.room());
    return length < 0 || !batch.fits(length) ? -1 : batch.add(length);
  }

  /** Whether a local file of {@code size} bytes is for this path under {@code params}. */
  static boolean suits(FsVerityParams params, long size) {
    return size <= LIMIT && params.blockSize() <= MAX_BLOCK_SIZE;
  }

  /**
   * The descriptor of {@code file}, of about {@code expected} bytes, read to its end; null when it
   * turns out longer than the buffer (it grew since its size was taken), for the caller to hash it
   * another way. Read in one call into the native library where it can ({@link WholeFileRead}:
   * open, read, close), else with a {@code FileInputStream}: one call into the JDK's native code a
   * read, where a channel's read goes through several layers of Java (interruption, a temporary
   * direct buffer) that a short process spends compiling; a failure to open is told as a {@code
   * FileChannel} tells it (no such file, permission denied), naming the file.
   */
  FsVerityDescriptor digest(Path file, long expected) throws IOException {
    int length = readWhole(file, expected, bytes, 0, bytes.length);
    return length < 0 ? null : digester.digest(bytes, length);
  }

  /**
   * Reads {@code file} to its end into {@code into[at, at + room)}; returns its length, or -1 when
   * the room filled before the end was seen.
   */
  private static int readWhole(Path file, long expected, byte[] into, int at, int room)
      throws IOException {
    int read = WholeFileRead.read(file, expected, into, at, room);
    if (read != WholeFileRead.NOT_READ) {
      return read; // its length, or FULL (-1)
    }
    // The first read asks for what is expected and a byte (a stream's read allocates as much native
    // memory); the next ones, which see the end or what the file grew by, for a stack buffer's
    // worth.
    int want = (int) Math.min(room, expected + 1);
    int length = 0;
    try (FileInputStream in = open(file)) {
      while (true) {
        int ask = Math.min(room - length, Math.max(want - length, READ_AFTER));
        if (ask == 0) {
          return -1; // full before the end of the file was seen
        }
        int n = in.read(into, at + length, ask);
        if (n < 0) {
          return length;
        }
        length += n;
      }
    }
  }

  private static FileInputStream open(Path file) throws IOException {
    try {
      return new FileInputStream(file.toFile());
    } catch (FileNotFoundException e) { // also a directory, an unreadable file
      FileChannel.open(file).close(); // throws the exception that names why, if it still fails
      throw e;
    }
  }

  /** {@code descriptor}'s file digest, hashed by this thread's hasher. */
  byte[] fileDigest(FsVerityDescriptor descriptor) {
    return digester.fileDigest(descriptor);
  }
}
