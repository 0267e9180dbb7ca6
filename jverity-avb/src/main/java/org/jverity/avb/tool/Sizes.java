package org.jverity.avb.tool;

import org.jverity.avb.hashtree.AvbTreeGeometry;
import org.jverity.format.VerityParameterException;

/** The sizes avbtool plans partitions with (its rounding is {@link AvbTreeGeometry#roundUp}). */
final class Sizes {
  private Sizes() {}

  /** avbtool's ImageHandler block size: partitions, padding and the footer block are in these. */
  static final int IMAGE_BLOCK = AvbTreeGeometry.PAD;

  /** Room left for the vbmeta blob (libavb's limit). */
  static final int MAX_VBMETA = AvbTreeGeometry.MAX_VBMETA_SIZE;

  /** Room left for the footer block. */
  static final int MAX_FOOTER = AvbTreeGeometry.MAX_FOOTER_SIZE;

  /** The metadata avbtool reserves in every partition: 69632 bytes. */
  static final int MAX_METADATA = MAX_VBMETA + MAX_FOOTER;

  /**
   * Where {@code size} bytes from {@code offset} end, or {@link Long#MAX_VALUE} when a hostile
   * descriptor's two u64 fields add past it: compared with a file's size, that end is refused, not
   * wrapped to a negative one that passes the check.
   */
  static long end(long offset, long size) {
    long end = offset + size;
    return ((offset ^ end) & (size ^ end)) < 0 ? Long.MAX_VALUE : end;
  }

  /** avbtool's check of --partition_size against the image block size. */
  static void requireWholeBlocks(long partitionSize) {
    if (partitionSize % IMAGE_BLOCK != 0 || partitionSize < 0) {
      throw new VerityParameterException(
          "--partition_size: "
              + partitionSize
              + " (expected: a multiple of the image block size "
              + IMAGE_BLOCK
              + ")");
    }
  }
}
