package org.jverity.verify;

import java.io.EOFException;
import java.util.Objects;

/** Checks of a read request, made before any work (or prefetch) is started for it. */
final class Requests {
  private Requests() {}

  /** The range must lie within the image ({@code size} bytes) and within the array. */
  static void checkRange(long size, long offset, byte[] dst, int dstOffset, int length)
      throws EOFException {
    Objects.checkFromIndexSize(dstOffset, length, dst.length);
    checkRange(size, offset, length);
  }

  /**
   * The range must lie within the image ({@code size} bytes): checked before anything is allocated
   * for it, so a bad length is an exception, never an allocation.
   *
   * @throws IllegalArgumentException if {@code length} is negative
   * @throws EOFException if the range is not inside the image
   */
  static void checkRange(long size, long offset, long length) throws EOFException {
    if (length < 0) {
      throw new IllegalArgumentException("length: " + length + " (expected: >= 0)");
    }
    if (offset < 0 || offset > size - length) { // no overflow: size >= 0, length >= 0
      throw new EOFException(
          "read of "
              + length
              + " bytes at "
              + offset
              + " is outside the image ("
              + size
              + " bytes)");
    }
  }
}
