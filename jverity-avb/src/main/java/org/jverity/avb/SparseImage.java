package org.jverity.avb;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import org.jverity.io.BlockDevice;

/**
 * Android's sparse image format (libsparse: a 28-byte header, magic {@code 0xed26ff3a}, then
 * chunks), which the build system emits for system images. avbtool edits such images chunk by
 * chunk; jverity works on raw images only, and says so: hashing a sparse file as if it were raw
 * would give a tree, and an image, no device boots. {@code simg2img} turns one into a raw image.
 */
public final class SparseImage {
  /** {@code SPARSE_HEADER_MAGIC}, little-endian in the file. */
  static final int MAGIC = 0xed26ff3a;

  private static final int HEADER_SIZE = 28;
  private static final int CHUNK_HEADER_SIZE = 12;

  private SparseImage() {}

  /**
   * Whether {@code image} starts with a sparse header: the magic, major version 1 and libsparse's
   * header sizes, so that a raw image whose first bytes happen to match the magic is still raw.
   */
  public static boolean is(BlockDevice image) throws IOException {
    if (image.size() < HEADER_SIZE) {
      return false;
    }
    ByteBuffer h = ByteBuffer.allocate(HEADER_SIZE);
    image.readFully(0, h);
    h.flip().order(ByteOrder.LITTLE_ENDIAN);
    return h.getInt(0) == MAGIC
        && h.getShort(4) == 1 // major version
        && h.getShort(8) == HEADER_SIZE
        && h.getShort(10) == CHUNK_HEADER_SIZE;
  }

  /** The one line refusing {@code display}, a sparse image. */
  public static String refusal(String display) {
    return display
        + ": an Android sparse image (expected: a raw image; simg2img "
        + display
        + " RAW converts it)";
  }
}
