package org.jverity.avb.verify;

import org.jverity.io.BlockDevice;

/**
 * The file a descriptor's partition is read from.
 *
 * @param display the name lines and refusals give it (its path as given or resolved)
 * @param device the open file
 * @param metadataStart where its tree and FEC must end: its vbmeta, or its end without a footer
 */
record PartitionFile(String display, BlockDevice device, long metadataStart) {}
