package org.jverity.server;

import java.util.Objects;
import org.jverity.image.ParamOverrides;
import org.jverity.image.TrustedRoot;

/**
 * Where an export's trusted root comes from: given as text with the tree's parameters, and resolved
 * against the hash device when the export is opened ({@link Given}), or known already because a
 * format with trusted metadata of its own gave it, checked before the export was configured (an AVB
 * vbmeta: {@link Known}; a DDI's signature partition or its root hash given, the data in a range of
 * the image: {@link Partition}). Compared by value, so a reload that gives the same root is no
 * change.
 */
public sealed interface ExportRoot {
  /**
   * @param rootText the root hash in hex or an image identity, as given (not yet parsed)
   * @param overrides the tree's parameters given (algorithm, block sizes, offsets, superblock)
   */
  record Given(String rootText, ParamOverrides overrides) implements ExportRoot {
    public Given {
      Objects.requireNonNull(rootText, "rootText");
      Objects.requireNonNull(overrides, "overrides");
    }
  }

  /**
   * @param root the parameters and root hash, as the trusted metadata gave them
   */
  record Known(TrustedRoot root) implements ExportRoot {
    public Known {
      Objects.requireNonNull(root, "root");
    }
  }

  /**
   * A root known already whose data is a partition of the image: {@code dataLength} bytes from
   * {@code dataOffset}; the root's hash offset places its tree in the same image.
   *
   * @param root the parameters and root hash, as the image's trusted metadata gave them
   * @param dataOffset the data partition's first byte in the image
   * @param dataLength the data partition's bytes
   */
  record Partition(TrustedRoot root, long dataOffset, long dataLength) implements ExportRoot {
    public Partition {
      Objects.requireNonNull(root, "root");
      if (dataOffset < 0 || dataLength <= 0) {
        throw new IllegalArgumentException("partition: " + dataOffset + "+" + dataLength);
      }
    }
  }
}
