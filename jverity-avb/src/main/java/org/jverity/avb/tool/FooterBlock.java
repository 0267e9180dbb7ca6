package org.jverity.avb.tool;

import java.io.IOException;
import java.nio.file.Path;
import java.util.Optional;
import org.jverity.avb.AvbFooter;
import org.jverity.avb.hashtree.AvbTreeGeometry;
import org.jverity.io.BlockDevice;
import org.jverity.io.FileDevice;

/** The footer block avbtool writes last, and the footer an image already has. */
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
}
