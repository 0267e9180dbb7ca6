package org.jverity.io;

import java.io.EOFException;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.Objects;

/**
 * A file read two ways by the size of the read: small reads copied out of a {@link MappedDevice}
 * (no system call: random 4 KiB verified reads are ~15% faster than with {@code pread}), large ones
 * with {@code pread} through a {@link FileDevice}. A large read gains nothing from the mapping,
 * where it costs a page fault per 64 KiB and leaves every page it touched mapped into the process:
 * a served 64 MiB copy left 64 MiB of the image in the server's resident set (nbdkit, reading with
 * {@code pread}, counts none), and it kept growing with every range a client streamed.
 *
 * <p>Both views have the size the mapping had when it opened; a read past it is an EOFException
 * either way, and a file that shrank underneath is an IOException on either path. Thread-safe, as
 * both views are; {@link #close()} closes both, each waiting for its reads in flight.
 */
public final class SplitDevice implements BlockDevice {
  /**
   * Reads of at least this many bytes go to {@code pread}: the smallest piece the verified read
   * path cuts a large request into (a 256 KiB NBD read becomes eight of them on two cores). There
   * the system call costs ~1 us beside ~16 us of hashing, and a cold mapped read a fault per 64
   * KiB.
   */
  static final int LARGE_READ = 32 << 10;

  private final MappedDevice mapped;
  private final FileDevice file;
  private final int largeRead;

  SplitDevice(MappedDevice mapped, FileDevice file, int largeRead) {
    this.mapped = mapped;
    this.file = file;
    this.largeRead = largeRead;
  }

  /** Opens {@code path} both ways; the caller closes it. */
  static SplitDevice open(Path path) throws IOException {
    return open(path, LARGE_READ);
  }

  /** As {@link #open(Path)}, with reads of {@code largeRead} bytes and more sent to pread. */
  static SplitDevice open(Path path, int largeRead) throws IOException {
    MappedDevice mapped = MappedDevice.open(path);
    try {
      return new SplitDevice(mapped, FileDevice.openRead(path), largeRead);
    } catch (IOException | RuntimeException e) {
      mapped.close();
      throw e;
    }
  }

  public Path path() {
    return mapped.path();
  }

  @Override
  public String description() {
    return mapped.description();
  }

  @Override
  public long size() {
    return mapped.size();
  }

  @Override
  public void readFully(long offset, ByteBuffer dst) throws IOException {
    int length = dst.remaining();
    if (length < largeRead) {
      mapped.readFully(offset, dst);
      return;
    }
    checkEnd(offset, length);
    file.readFully(offset, dst);
  }

  @Override
  public void readFully(long offset, byte[] dst, int dstOffset, int length) throws IOException {
    if (length < largeRead) {
      mapped.readFully(offset, dst, dstOffset, length);
      return;
    }
    Objects.checkFromIndexSize(dstOffset, length, dst.length);
    checkEnd(offset, length);
    file.readFully(offset, ByteBuffer.wrap(dst, dstOffset, length));
  }

  /** The mapping's size rules both views: a file that grew after opening is not read further. */
  private void checkEnd(long offset, int length) throws EOFException {
    if (offset >= 0 && offset > mapped.size() - length) {
      throw new EOFException(
          description()
              + ": read of "
              + length
              + " bytes at "
              + offset
              + " (expected: end <= size "
              + mapped.size()
              + ")");
    }
  }

  @Override
  public void close() throws IOException {
    try {
      file.close();
    } finally {
      mapped.close();
    }
  }

  @Override
  public String toString() {
    return "SplitDevice[" + path() + "]";
  }
}
