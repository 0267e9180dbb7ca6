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
