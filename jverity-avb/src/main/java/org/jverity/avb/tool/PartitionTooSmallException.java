package org.jverity.avb.tool;

import java.io.IOException;

/**
 * An image that, with the metadata a footer command appends, does not fit the partition size given:
 * avbtool's "Image size of N exceeds maximum image size of M in order to fit in a partition size of
 * P." The image is left as it was.
 */
public final class PartitionTooSmallException extends IOException {
  public PartitionTooSmallException(
      String image, long imageSize, long maxImageSize, long partitionSize) {
    super(
        image
            + ": image size "
            + imageSize
            + " exceeds the maximum image size "
            + maxImageSize
            + " that fits a partition size of "
            + partitionSize);
  }

  public PartitionTooSmallException(String message) {
    super(message);
  }
}
