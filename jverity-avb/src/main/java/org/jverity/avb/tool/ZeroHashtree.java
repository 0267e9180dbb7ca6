package org.jverity.avb.tool;

import java.io.IOException;
import java.nio.file.Path;
import org.jverity.avb.AvbFormatException;
import org.jverity.avb.HashtreeDescriptor;
import org.jverity.avb.hashtree.AvbHashtree;

/**
 * avbtool's {@code zero_hashtree}: the tree and the FEC overwritten with "ZeRoHaSH" and zeros (an
 * image that compresses well, its tree to be rebuilt on the device), sizes and vbmeta kept. A
 * failure restores the bytes.
 */
public record ZeroHashtree(Path image) {
  public void apply() throws IOException {
    if (FooterBlock.existing(image).isEmpty()) {
      throw new AvbFormatException(image + ": no AVB footer (expected: an image with a footer)");
    }
    ParsedImage parsed = ParsedImage.read(image);
    HashtreeDescriptor ht =
        parsed
            .hashtree()
            .orElseThrow(() -> new AvbFormatException(image + ": no hashtree descriptor"));
    long fecOffset = 0;
    long fecSize = 0;
    if (ht.fecOffset() > 0) {
      if (ht.fecOffset() != Sizes.end(ht.treeOffset(), ht.treeSize())) {
        throw new AvbFormatException(
            image
                + ": FEC at "
                + ht.fecOffset()
                + " (expected: right after the hash tree, at "
                + Sizes.end(ht.treeOffset(), ht.treeSize())
                + ")");
      }
      fecOffset = ht.fecOffset();
      fecSize = ht.fecSize();
    }
    long end = Sizes.end(Sizes.end(ht.treeOffset(), ht.treeSize()), fecSize);
    if (end > parsed.size()) {
      throw new AvbFormatException(
          image
              + ": tree and FEC end at "
              + end
              + " (expected: within "
              + parsed.size()
              + " bytes)");
    }
    try (ImageEdit edit = ImageEdit.from(image, ht.treeOffset())) {
      // Restored wholly on failure: the saved bytes are the region zeroed and the vbmeta after it.
      edit.putBack();
      AvbHashtree.zero(edit.device(), ht.treeOffset(), ht.treeSize(), fecOffset, fecSize);
      edit.commit();
    }
  }
}
