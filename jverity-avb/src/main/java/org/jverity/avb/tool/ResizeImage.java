package org.jverity.avb.tool;

import java.io.IOException;
import java.nio.file.Path;
import org.jverity.avb.AvbFooter;
import org.jverity.avb.AvbFormatException;
import org.jverity.avb.hashtree.AvbTreeGeometry;

/**
 * avbtool's {@code resize_image}: the same footer moved to the end of a partition of another size
 * (the vbmeta is the last thing before the padding, so nothing else moves). A failure leaves the
 * image as it was.
 */
public record ResizeImage(Path image, long partitionSize) {
  public void apply() throws IOException {
    Sizes.requireWholeBlocks(partitionSize);
    AvbFooter footer =
        FooterBlock.existing(image)
            .orElseThrow(
                () ->
                    new AvbFormatException(
                        image + ": no AVB footer (expected: an image with a footer)"));
    long vbmetaEnd =
        AvbTreeGeometry.roundUp(footer.vbmetaOffset() + footer.vbmetaSize(), Sizes.IMAGE_BLOCK);
    if (partitionSize < vbmetaEnd + Sizes.IMAGE_BLOCK) {
      throw new PartitionTooSmallException(
          image
              + ": partition size "
              + partitionSize
              + " (expected: at least "
              + (vbmetaEnd + Sizes.IMAGE_BLOCK)
              + ", the vbmeta's end and a footer block)");
    }
    try (ImageEdit edit = ImageEdit.from(image, vbmetaEnd)) {
      edit.resize(partitionSize - Sizes.IMAGE_BLOCK);
      edit.write(partitionSize - Sizes.IMAGE_BLOCK, FooterBlock.of(footer));
      edit.commit();
    }
  }
}
