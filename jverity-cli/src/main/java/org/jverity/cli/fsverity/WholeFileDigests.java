package org.jverity.cli.fsverity;

import java.io.FileInputStream;
import java.io.FileNotFoundException;
import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import org.jverity.fsverity.FsVerityDescriptor;
import org.jverity.fsverity.FsVerityParams;
import org.jverity.fsverity.SmallFileDigester;

/**
 * One hashing thread's digests of small local files, each read whole into a buffer kept from file
 * to file and hashed in memory ({@link SmallFileDigester}): one open, a read or two and a close a
 * file, nothing allocated but the result. Not thread-safe: one per thread.
 */
final class WholeFileDigests {
  /** Files up to this size (by the walk's or a stat's count) are read whole. */
  static final int LIMIT = 1 << 20; // bytes

  /** Larger blocks than this take the device path: a buffer of one block would be too big. */
  static final int MAX_BLOCK_SIZE = 64 << 10; // bytes

  /** What the JDK's native read copies through a buffer on its stack, allocating nothing. */
  private static final int READ_AFTER = 8192; // bytes

  private final SmallFileDigester digester;
  private final byte[] bytes; // a whole file and its last block's padding

  WholeFileDigests(FsVerityParams params) {
    this.digester = new SmallFileDigester(params);
    this.bytes = new byte[LIMIT + params.blockSize()]; // LIMIT is a multiple of any block size
  }

  /** Whether a local file of {@code size} bytes is for this path under {@code params}. */
  static boolean suits(FsVerityParams params, long size) {
    return size <= LIMIT && params.blockSize() <= MAX_BLOCK_SIZE;
  }

  /**
   * The descriptor of {@code file}, of about {@code expected} bytes, read to its end; null when it
   * turns out longer than the buffer (it grew since its size was taken), for the caller to hash it
   * another way. Read with a {@code FileInputStream}: one call into the JDK's native code a read,
   * where a channel's read goes through several layers of Java (interruption, a temporary direct
   * buffer) that a short process spends compiling; a failure to open is told as a {@code
   * FileChannel} tells it (no such file, permission denied), naming the file.
   */
  FsVerityDescriptor digest(Path file, long expected) throws IOException {
    // The first read asks for what is expected and a byte (a stream's read allocates as much native
    // memory); the next ones, which see the end or what the file grew by, for a stack buffer's
    // worth.
    int want = (int) Math.min(bytes.length, expected + 1);
    int length = 0;
    try (FileInputStream in = open(file)) {
      while (true) {
        int ask = Math.min(bytes.length - length, Math.max(want - length, READ_AFTER));
        int n = in.read(bytes, length, ask);
        if (n < 0) {
          break;
        }
        length += n;
        if (length == bytes.length) {
          return null; // full before the end of the file was seen
        }
      }
    }
    return digester.digest(bytes, length);
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
