package org.jverity.ddi;

import java.util.Objects;
import org.jverity.io.BlockDevice;

/**
 * A partition a DDI carries beside its verity set, copied in as it is ({@code ddi build --extra
 * esp:efi.vfat}), as repart's {@code CopyBlocks=} with a {@code Type=} and no other setting would.
 * The caller owns and closes {@code content}. Immutable.
 *
 * @param type its type
 * @param content what it holds; its size, rounded up to 4096 bytes, is the partition's
 */
public record ExtraPartition(ExtraType type, BlockDevice content) {
  public ExtraPartition {
    Objects.requireNonNull(type, "type");
    Objects.requireNonNull(content, "content");
  }
}
