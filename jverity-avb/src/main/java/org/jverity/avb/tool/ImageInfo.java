package org.jverity.avb.tool;

import java.io.IOException;
import java.nio.file.Path;
import org.jverity.avb.Descriptor;
import org.jverity.avb.HashtreeDescriptor;
import org.jverity.avb.InfoImage;
import org.jverity.avb.verify.DmVerityTable;

/**
 * avbtool's {@code info_image}: its text line for line, and on request what avbtool does not say:
 * for each hashtree descriptor, the dm-verity table first-stage init (libfs_avb) builds from it and
 * the {@code veritysetup open} command that maps the image the same way.
 */
public record ImageInfo(Path image) {
  /** avbtool's text alone, whatever the descriptors' numbers (avbtool prints them as they are). */
  public String avbtoolText() throws IOException {
    ParsedImage parsed = ParsedImage.read(image);
    return InfoImage.format(parsed.footer(), parsed.size(), parsed.vbmeta());
  }

  /**
   * avbtool's text, then the dm-verity lines of each hashtree descriptor.
   *
   * @throws org.jverity.avb.AvbVerificationException a descriptor whose numbers make no table
   *     (DmVerityTable), before anything is returned
   */
  public String withDmVerity() throws IOException {
    ParsedImage parsed = ParsedImage.read(image);
    StringBuilder b =
        new StringBuilder(InfoImage.format(parsed.footer(), parsed.size(), parsed.vbmeta()));
    for (Descriptor d : parsed.vbmeta().descriptors()) {
      if (d instanceof HashtreeDescriptor h) {
        b.append(tables(h, image.toString()));
      }
    }
    return b.toString();
  }

  /** The libfs_avb table and the veritysetup command of one hashtree descriptor. */
  private static String tables(HashtreeDescriptor h, String image) throws IOException {
    String name = h.partitionName().isEmpty() ? "avb" : h.partitionName();
    DmVerityTable table =
        DmVerityTable.of(h.partitionName() + ": hashtree descriptor in " + image, h);
    return "dm-verity table (libfs_avb) of "
        + name
        + ":\n  "
        + table.libfsAvb(image)
        + "\nEquivalent veritysetup command:\n  "
        + table.veritysetupOpen(image, name)
        + "\n";
  }
}
