package org.jverity.io;

import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;
import java.nio.ReadOnlyBufferException;
import java.nio.file.AccessDeniedException;
import java.nio.file.FileSystemException;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import org.jverity.posix.Posix;

/**
 * A file descriptor used through {@link Posix}: {@code pread}/{@code pwrite} straight into the
 * caller's buffer, heap or direct, with no copy. An interrupt has no effect on it. Thread-safe.
 */
final class NativeFile implements FileIo {
  private final Posix posix;
  private final Path path;
  private final int fd;

  private NativeFile(Posix posix, Path path, int fd) {
    this.posix = posix;
    this.path = path;
    this.fd = fd;
  }

  /** Opens read-only, or read-write creating the file (mode 0644) without truncating it. */
  static NativeFile open(Posix posix, Path path, boolean write) throws IOException {
    int r = posix.open(path.toString(), write);
    if (r < 0) {
      String file = path.toString();
      throw switch (-r) {
        case Posix.ENOENT -> new NoSuchFileException(file);
        case Posix.EACCES, Posix.EPERM -> new AccessDeniedException(file);
        default -> new FileSystemException(file, null, "open failed: " + posix.describe(-r));
      };
    }
    return new NativeFile(posix, path, r);
  }

  @Override
  public int read(long offset, ByteBuffer dst) throws IOException {
    if (dst.isReadOnly()) {
      throw new ReadOnlyBufferException(); // the kernel would write into it regardless
    }
    long n = posix.pread(fd, MemorySegment.ofBuffer(dst), offset);
    if (n < 0) {
      throw failure("pread of " + dst.remaining() + " bytes at " + offset, n);
    }
    dst.position(dst.position() + (int) n); // n <= dst.remaining()
    return (int) n;
  }

  @Override
  public int write(long offset, ByteBuffer src) throws IOException {
    long n = posix.pwrite(fd, MemorySegment.ofBuffer(src), offset);
    if (n < 0) {
      throw failure("pwrite of " + src.remaining() + " bytes at " + offset, n);
    }
    src.position(src.position() + (int) n); // n <= src.remaining()
    return (int) n;
  }

  @Override
  public long size() throws IOException {
    long n = posix.size(fd);
    if (n < 0) {
      throw failure("lseek to the end", n);
    }
    return n;
  }

  @Override
  public void sync() throws IOException {
    int r = posix.fsync(fd);
    if (r < 0) {
      throw failure("fsync", r);
    }
  }

  @Override
  public void close() throws IOException {
    int r = posix.close(fd);
    if (r < 0) {
      throw failure("close", r);
    }
  }

  private IOException failure(String call, long negatedErrno) {
    return new IOException(path + ": " + call + " failed: " + posix.describe((int) -negatedErrno));
  }
}
