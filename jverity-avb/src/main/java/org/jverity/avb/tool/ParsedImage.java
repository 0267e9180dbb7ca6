package org.jverity.avb.tool;

import java.io.IOException;
import java.nio.file.Path;
import java.util.Optional;
import org.jverity.avb.AvbFooter;
import org.jverity.avb.Descriptor;
import org.jverity.avb.HashtreeDescriptor;
import org.jverity.avb.VbmetaImage;
import org.jverity.io.BlockDevice;
import org.jverity.io.FileDevice;

/**
 * An image as avbtool's {@code _parse_image} reads it: its footer when it has one (the vbmeta is
 * where the footer says), else a vbmeta image at offset 0.
 *
 * @param path the file
 * @param size its size in bytes
 * @param footer the footer, or null
 * @param vbmeta the vbmeta it holds
 */
public record ParsedImage(Path path, long size, AvbFooter footer, VbmetaImage vbmeta) {
  /** Reads footer and vbmeta of {@code path}. */
  public static ParsedImage read(Path path) throws IOException {
    try (BlockDevice d = FileDevice.openChannel(path, false)) {
      return read(path, d);
    }
  }

  /** Reads footer and vbmeta of {@code device}, named {@code path}. */
  public static ParsedImage read(Path path, BlockDevice device) throws IOException {
    AvbFooter footer = AvbFooter.read(device).orElse(null);
    return new ParsedImage(path, device.size(), footer, VbmetaImage.read(device, footer));
  }

  /** The first hashtree descriptor, as avbtool takes it. */
  public Optional<HashtreeDescriptor> hashtree() {
    for (Descriptor d : vbmeta.descriptors()) {
      if (d instanceof HashtreeDescriptor h) {
        return Optional.of(h);
      }
    }
    return Optional.empty();
  }

  /**
   * Where avbtool looks for a chained partition's image: beside this one, named after the
   * partition, with this image's extension ({@code vbmeta.img} chaining {@code system} gives {@code
   * system.img}).
   */
  public Path chained(String partitionName) {
    String name = path.getFileName().toString();
    int dot = name.lastIndexOf('.');
    String ext = dot <= 0 ? "" : name.substring(dot);
    Path dir = path.toAbsolutePath().getParent();
    return dir.resolve(partitionName + ext);
  }
}
