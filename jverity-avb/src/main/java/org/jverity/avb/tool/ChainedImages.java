package org.jverity.avb.tool;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import org.jverity.avb.AvbFormatException;
import org.jverity.avb.ChainPartitionDescriptor;
import org.jverity.avb.Descriptor;

/**
 * The images a vbmeta chains to, found as avbtool finds them ({@link ParsedImage#chained}), for the
 * commands that follow chains without verifying them (digests, cmdline). libavb allows chains in
 * the top-level vbmeta only, so one level is followed; a chained image that chains again is refused
 * rather than followed round a cycle.
 */
final class ChainedImages {
  private ChainedImages() {}

  /** The images {@code top} chains to, in descriptor order. */
  static List<ParsedImage> of(ParsedImage top) throws IOException {
    List<ParsedImage> chained = new ArrayList<>();
    for (Descriptor d : top.vbmeta().descriptors()) {
      if (d instanceof ChainPartitionDescriptor c) {
        ParsedImage image = ParsedImage.read(top.chained(c.partitionName()));
        for (Descriptor inner : image.vbmeta().descriptors()) {
          if (inner instanceof ChainPartitionDescriptor) {
            throw new AvbFormatException(
                image.path()
                    + ": a chain descriptor in a chained image (expected: chains in the top-level vbmeta only)");
          }
        }
        chained.add(image);
      }
    }
    return chained;
  }
}
