package org.jverity.posix;

import java.lang.foreign.MemorySegment;

/**
 * The C library's calls {@link Posix} makes, one way of reaching them: {@link JniCalls} through
 * libjverity.so where it is loaded, {@link FfmCalls} through the FFM API elsewhere. Each returns
 * the C result or {@code -errno}, with {@code EINTR} retried (but for close). Thread-safe.
 */
sealed interface Calls permits JniCalls, FfmCalls {
  int open(String path, int flags, int mode);

  /** Into {@code dst}, a native segment or one over a {@code byte[]}. */
  long pread(int fd, MemorySegment dst, long offset);

  long pwrite(int fd, MemorySegment src, long offset);

  int fsync(int fd);

  /** {@code lseek(fd, 0, SEEK_END)}. */
  long seekEnd(int fd);

  int close(int fd);

  int dup(int fd);

  int dup2(int from, int to);

  /** strerror's text, or null when the C library has none. */
  String strerror(int errnoValue);
}
