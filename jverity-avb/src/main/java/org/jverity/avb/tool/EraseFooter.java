package org.jverity.avb.tool;

import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import org.jverity.avb.AvbFormatException;
import org.jverity.avb.HashtreeDescriptor;

/**
 * avbtool's {@code erase_footer}: cuts the image back to its original size, which gives back the
 * file a footer command was given, byte for byte; with {@code keepHashtree}, to the end of its tree
 * and FEC instead. Nothing is written: the one change is the truncation, made last.
 */
public record EraseFooter(Path image, boolean keepHashtree) {
  /** Returns the image's new size. */
  public long apply() throws IOException {
    if (FooterBlock.existing(image).isEmpty()) {
      throw new AvbFormatException(image + ": no AVB footer (expected: an image with a footer)");
    }
    ParsedImage parsed = ParsedImage.read(image);
    long size = parsed.footer().originalImageSize();
    if (keepHashtree) {
      HashtreeDescriptor ht =
          parsed
              .hashtree()
              .orElseThrow(
                  () ->
                      new AvbFormatException(
                          image + ": no hashtree descriptor (expected with --keep_hashtree)"));
      size = Sizes.end(ht.treeOffset(), ht.treeSize());
      if (ht.fecOffset() > 0) {
        size = Math.max(size, Sizes.end(ht.fecOffset(), ht.fecSize()));
      }
    }
    if (size > parsed.size()) {
      throw new AvbFormatException(
          image
              + ": footer says the image ends at "
              + size
              + " (expected: at most "
              + parsed.size()
              + ")");
    }
    try (FileChannel ch = FileChannel.open(image, StandardOpenOption.WRITE)) {
      ch.truncate(size);
    }
    return size;
  }
}
