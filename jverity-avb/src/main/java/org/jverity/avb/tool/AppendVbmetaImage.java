package org.jverity.avb.tool;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.jverity.avb.AvbFooter;
import org.jverity.avb.AvbFormatException;
import org.jverity.avb.hashtree.AvbTreeGeometry;

/**
 * avbtool's {@code append_vbmeta_image}: the vbmeta of another image (a vbmeta image, or the one an
 * image's footer points at) appended to {@code image} with a footer, the image ending at {@code
 * partitionSize}. Idempotent; a failure leaves the image as it was.
 */
public record AppendVbmetaImage(Path image, Path vbmetaImage, long partitionSize) {
  public AvbFooter apply() throws IOException {
    Sizes.requireWholeBlocks(partitionSize);
    byte[] blob = ParsedImage.read(vbmetaImage).vbmeta().encode();
    long fileSize = Files.size(image);
    long original = FooterBlock.existing(image).map(AvbFooter::originalImageSize).orElse(fileSize);
    if (original > fileSize) {
      throw new AvbFormatException(
          image
              + ": footer original image size "
              + original
              + " (expected: at most "
              + fileSize
              + ")");
    }
    try (ImageEdit edit = ImageEdit.from(image, original)) {
      long offset = AvbTreeGeometry.roundUp(original, Sizes.IMAGE_BLOCK);
      edit.resize(offset);
      AvbFooter footer =
          FooterBlock.appendVbmeta(edit, offset, blob, original, partitionSize, image.toString());
      edit.commit();
      return footer;
    }
  }
}
