package org.jverity.posix;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.charset.StandardCharsets;

/**
 * The calls through libjverity.so ({@code src/main/c/posix.c}): bound by a symbol lookup, where the
 * FFM API's stubs cost a process ~60 ms at their first use even from an AOT cache. Heap arrays are
 * pinned for the call, as {@link FfmCalls}' critical binding passes them: no copy.
 */
final class JniCalls implements Calls {
  @Override
  public int open(String path, int flags, int mode) {
    return open0(path.getBytes(StandardCharsets.UTF_8), flags, mode);
  }

  @Override
  public long pread(int fd, MemorySegment dst, long offset) {
    return dst.isNative()
        ? preadNative0(fd, dst.address(), dst.byteSize(), offset)
        : preadHeap0(fd, array(dst), dst.address(), dst.byteSize(), offset); // never read-only
  }

  @Override
  public long pwrite(int fd, MemorySegment src, long offset) {
    if (src.isNative()) {
      return pwriteNative0(fd, src.address(), src.byteSize(), offset);
    }
    if (src.isReadOnly()) { // a read-only segment does not give its array away: write a copy
      byte[] copy = src.toArray(ValueLayout.JAVA_BYTE);
      return pwriteHeap0(fd, copy, 0, copy.length, offset);
    }
    return pwriteHeap0(fd, array(src), src.address(), src.byteSize(), offset);
  }

  /**
   * The array under a heap segment, whose {@code address()} is the offset into it: the segment's
   * own bounds checks keep {@code [address, address + byteSize)} inside the array.
   */
  private static byte[] array(MemorySegment heap) {
    if (!(heap.heapBase().orElse(null) instanceof byte[] a)) {
      throw new IllegalArgumentException("not a writable segment over a byte[]: " + heap);
    }
    return a;
  }

  @Override
  public int fsync(int fd) {
    return fsync0(fd);
  }

  @Override
  public long seekEnd(int fd) {
    return seekEnd0(fd);
  }

  @Override
  public int close(int fd) {
    return close0(fd);
  }

  @Override
  public int dup(int fd) {
    return dup0(fd);
  }

  @Override
  public int dup2(int from, int to) {
    return dup20(from, to);
  }

  @Override
  public String strerror(int errnoValue) {
    return strerror0(errnoValue);
  }

  private static native int open0(byte[] path, int flags, int mode);

  private static native long preadHeap0(int fd, byte[] array, long off, long len, long pos);

  private static native long pwriteHeap0(int fd, byte[] array, long off, long len, long pos);

  private static native long preadNative0(int fd, long address, long len, long pos);

  private static native long pwriteNative0(int fd, long address, long len, long pos);

  private static native int fsync0(int fd);

  private static native long seekEnd0(int fd);

  private static native int close0(int fd);

  private static native int dup0(int fd);

  private static native int dup20(int from, int to);

  private static native String strerror0(int errnoValue);
}
