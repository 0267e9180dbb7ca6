package org.jverity.cli.fsverity;

import java.io.IOException;
import java.nio.ByteBuffer;
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

  private final SmallFileDigester digester;
  private final byte[] bytes; // a whole file and its last block's padding
  private final ByteBuffer buffer;

  WholeFileDigests(FsVerityParams params) {
    this.digester = new SmallFileDigester(params);
    this.bytes = new byte[LIMIT + params.blockSize()]; // LIMIT is a multiple of any block size
    this.buffer = ByteBuffer.wrap(bytes);
  }

  /** Whether a local file of {@code size} bytes is for this path under {@code params}. */
  static boolean suits(FsVerityParams params, long size) {
    return size <= LIMIT && params.blockSize() <= MAX_BLOCK_SIZE;
  }

  /**
   * The descriptor of {@code file}, read to its end; null when it turns out longer than the buffer
   * (it grew since its size was taken), for the caller to hash it another way.
   */
  FsVerityDescriptor digest(Path file) throws IOException {
    buffer.clear();
    try (FileChannel in = FileChannel.open(file)) {
      while (buffer.hasRemaining() && in.read(buffer) >= 0) {
        if (!buffer.hasRemaining()) {
          return null; // full before the end of the file was seen
        }
      }
    }
    return digester.digest(bytes, buffer.position());
  }

  /** {@code descriptor}'s file digest, hashed by this thread's hasher. */
  byte[] fileDigest(FsVerityDescriptor descriptor) {
    return digester.fileDigest(descriptor);
  }
}
