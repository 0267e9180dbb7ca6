package org.jverity.avb.tool;

import java.io.IOException;
import java.nio.file.Path;
import org.jverity.avb.AvbFormatException;
import org.jverity.format.VerityParameterException;
import org.jverity.io.AtomicOutput;

/**
 * avbtool's {@code extract_vbmeta_image}: the vbmeta blob an image's footer points at, written as a
 * vbmeta image of its own, zero-padded to a multiple of {@code paddingSize} when not 0.
 */
public record ExtractVbmetaImage(Path image, Path output, long paddingSize) {
  public ExtractVbmetaImage {
    if (paddingSize < 0) {
      throw new VerityParameterException(
          "--padding_size: " + paddingSize + " (expected: 0 or more)");
    }
  }

  /** Writes the blob (padded); returns it unpadded. */
  public byte[] apply() throws IOException {
    if (FooterBlock.existing(image).isEmpty()) {
      throw new AvbFormatException(image + ": no AVB footer (expected: an image with a footer)");
    }
    byte[] blob = ParsedImage.read(image).vbmeta().encode();
    AtomicOutput.write(output, MakeVbmetaImage.padded(blob, paddingSize));
    return blob;
  }
}
