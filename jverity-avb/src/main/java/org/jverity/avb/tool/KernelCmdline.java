package org.jverity.avb.tool;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.jverity.avb.ChainPartitionDescriptor;
import org.jverity.avb.Descriptor;
import org.jverity.avb.KernelCmdlineDescriptor;

/**
 * avbtool's {@code calculate_kernel_cmdline}: the kernel-cmdline descriptors of an image and of the
 * images it chains to, each kept or dropped by its flags for {@code hashtreeDisabled}, joined by
 * spaces.
 */
public record KernelCmdline(Path image, boolean hashtreeDisabled) {
  public String apply() throws IOException {
    ParsedImage top = ParsedImage.read(image);
    List<String> parts = new ArrayList<>();
    List<ParsedImage> chained = ChainedImages.of(top);
    int next = 0;
    for (Descriptor d : top.vbmeta().descriptors()) {
      if (d instanceof ChainPartitionDescriptor) {
        for (Descriptor c : chained.get(next++).vbmeta().descriptors()) {
          add(c, parts);
        }
      } else {
        add(d, parts);
      }
    }
    return String.join(" ", parts);
  }

  private void add(Descriptor d, List<String> parts) {
    if (d instanceof KernelCmdlineDescriptor k) {
      boolean onlyEnabled =
          (k.flags() & KernelCmdlineDescriptor.FLAG_USE_ONLY_IF_HASHTREE_NOT_DISABLED) != 0;
      boolean onlyDisabled =
          (k.flags() & KernelCmdlineDescriptor.FLAG_USE_ONLY_IF_HASHTREE_DISABLED) != 0;
      if (!(onlyEnabled && hashtreeDisabled) && !(onlyDisabled && !hashtreeDisabled)) {
        parts.add(k.kernelCmdline());
      }
    }
  }
}
