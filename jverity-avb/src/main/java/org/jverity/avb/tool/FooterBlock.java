package org.jverity.avb.tool;

import java.io.IOException;
import java.nio.file.Path;
import java.util.Optional;
import org.jverity.avb.AvbFooter;
import org.jverity.avb.hashtree.AvbTreeGeometry;
import org.jverity.io.BlockDevice;
import org.jverity.io.FileDevice;

/**
 * The footer block avbtool writes last, the vbmeta before it ({@link #appendVbmeta}, how every
 * footer command ends), and the footer an image already has.
 */
final class FooterBlock {
  private FooterBlock() {}

  /** 4032 zero bytes, then the footer: one image block. */
  static byte[] of(AvbFooter footer) {
    byte[] block = new byte[Sizes.IMAGE_BLOCK];
    byte[] f = footer.encode();
    System.arraycopy(f, 0, block, block.length - f.length, f.length);
    return block;
  }

  /** The footer of {@code image}, when its last 64 bytes are one. */
  static Optional<AvbFooter> existing(Path image) throws IOException {
    try (BlockDevice d = FileDevice.openChannel(image, false)) {
      if (d.size() < AvbFooter.SIZE) {
        return Optional.empty();
      }
      return AvbFooter.read(d);
    }
  }

  /** {@code blob} zero-padded to whole image blocks. */
  static byte[] padded(byte[] blob) {
    byte[] p = new byte[(int) AvbTreeGeometry.roundUp(blob.length, Sizes.IMAGE_BLOCK)];
    System.arraycopy(blob, 0, p, 0, blob.length);
    return p;
  }

  /**
   * Writes {@code blob} (padded) at {@code offset}, then the footer block, ending the image at
   * {@code partitionSize} or one block past the blob: what both footer commands end with.
   */
  static AvbFooter appendVbmeta(
      ImageEdit edit, long offset, byte[] blob, long original, long partitionSize, String image)
      throws IOException {
    byte[] padded = FooterBlock.padded(blob);
    long footerAt = offset + padded.length;
    if (partitionSize > 0) {
      if (partitionSize - Sizes.IMAGE_BLOCK < footerAt) {
        throw new PartitionTooSmallException(
            image
                + ": the vbmeta ends at "
                + footerAt
                + ", past the footer block of a partition size of "
                + partitionSize);
      }
      footerAt = partitionSize - Sizes.IMAGE_BLOCK;
    }
    edit.write(offset, padded);
    AvbFooter footer = AvbFooter.of(original, offset, blob.length);
    edit.resize(footerAt);
    edit.write(footerAt, FooterBlock.of(footer));
    return footer;
  }
}
