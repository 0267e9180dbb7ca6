package org.jverity.avb;

import java.util.HexFormat;

/**
 * avbtool 1.3.0's {@code info_image} text, line for line: the footer (when there is one), the
 * header, then each descriptor as its {@code print_desc} prints it. Numbers print unsigned, as
 * Python's do; property values as Python's {@code repr} of bytes minus the {@code b} prefix.
 */
public final class InfoImage {
  private InfoImage() {}

  /**
   * The text for an image of {@code imageSize} bytes (the whole file, footer included) holding
   * {@code vbmeta}; {@code footerOrNull} null for a vbmeta partition.
   */
  public static String format(AvbFooter footerOrNull, long imageSize, VbmetaImage vbmeta) {
    StringBuilder o = new StringBuilder();
    if (footerOrNull != null) {
      AvbFooter f = footerOrNull;
      line(o, "Footer version:           " + u(f.versionMajor()) + "." + u(f.versionMinor()));
      line(o, "Image size:               " + imageSize + " bytes");
      line(o, "Original image size:      " + f.originalImageSize() + " bytes");
      line(o, "VBMeta offset:            " + f.vbmetaOffset());
      line(o, "VBMeta size:              " + f.vbmetaSize() + " bytes");
      line(o, "--");
    }
    VbmetaHeader h = vbmeta.header();
    line(
        o,
        "Minimum libavb version:   "
            + u(h.requiredLibavbVersionMajor())
            + "."
            + u(h.requiredLibavbVersionMinor()));
    line(o, "Header Block:             " + VbmetaHeader.SIZE + " bytes");
    line(o, "Authentication Block:     " + u(h.authenticationDataBlockSize()) + " bytes");
    line(o, "Auxiliary Block:          " + u(h.auxiliaryDataBlockSize()) + " bytes");
    byte[] key = vbmeta.publicKey();
    if (key.length > 0) {
      line(o, "Public key (sha1):        " + AvbPublicKey.sha1(key));
    }
    line(o, "Algorithm:                " + vbmeta.algorithm());
    line(o, "Rollback Index:           " + u(h.rollbackIndex()));
    line(o, "Flags:                    " + u(h.flags()));
    line(o, "Rollback Index Location:  " + u(h.rollbackIndexLocation()));
    line(o, "Release String:           '" + h.releaseString() + "'");
    line(o, "Descriptors:");
    for (Descriptor d : vbmeta.descriptors()) {
      describe(o, d);
    }
    if (vbmeta.descriptors().isEmpty()) {
      line(o, "    (none)");
    }
    return o.toString();
  }

  private static void describe(StringBuilder o, Descriptor descriptor) {
    HexFormat hex = HexFormat.of();
    switch (descriptor) {
      case PropertyDescriptor p -> {
        byte[] v = p.value();
        line(
            o,
            "    Prop: "
                + p.key()
                + " -> "
                + (v.length < 256 ? PythonRepr.propertyValue(v) : "(" + v.length + " bytes)"));
      }
      case HashtreeDescriptor d -> {
        line(o, "    Hashtree descriptor:");
        line(o, "      Version of dm-verity:  " + u(d.dmVerityVersion()));
        line(o, "      Image Size:            " + d.imageSize() + " bytes");
        line(o, "      Tree Offset:           " + d.treeOffset());
        line(o, "      Tree Size:             " + d.treeSize() + " bytes");
        line(o, "      Data Block Size:       " + u(d.dataBlockSize()) + " bytes");
        line(o, "      Hash Block Size:       " + u(d.hashBlockSize()) + " bytes");
        line(o, "      FEC num roots:         " + u(d.fecNumRoots()));
        line(o, "      FEC offset:            " + d.fecOffset());
        line(o, "      FEC size:              " + d.fecSize() + " bytes");
        line(o, "      Hash Algorithm:        " + d.hashAlgorithm());
        line(o, "      Partition Name:        " + d.partitionName());
        line(o, "      Salt:                  " + hex.formatHex(d.salt()));
        line(o, "      Root Digest:           " + hex.formatHex(d.rootDigest()));
        line(o, "      Flags:                 " + u(d.flags()));
      }
      case HashDescriptor d -> {
        line(o, "    Hash descriptor:");
        line(o, "      Image Size:            " + d.imageSize() + " bytes");
        line(o, "      Hash Algorithm:        " + d.hashAlgorithm());
        line(o, "      Partition Name:        " + d.partitionName());
        line(o, "      Salt:                  " + hex.formatHex(d.salt()));
        line(o, "      Digest:                " + hex.formatHex(d.digest()));
        line(o, "      Flags:                 " + u(d.flags()));
      }
      case KernelCmdlineDescriptor d -> {
        line(o, "    Kernel Cmdline descriptor:");
        line(o, "      Flags:                 " + u(d.flags()));
        line(o, "      Kernel Cmdline:        '" + d.kernelCmdline() + "'");
      }
      case ChainPartitionDescriptor d -> {
        line(o, "    Chain Partition descriptor:");
        line(o, "      Partition Name:          " + d.partitionName());
        line(o, "      Rollback Index Location: " + u(d.rollbackIndexLocation()));
        line(o, "      Public key (sha1):       " + AvbPublicKey.sha1(d.publicKey()));
        line(o, "      Flags:                   " + u(d.flags()));
      }
      case UnknownDescriptor d -> {
        byte[] data = d.payload();
        line(o, "    Unknown descriptor:");
        line(o, "      Tag:  " + Long.toUnsignedString(d.tag()));
        if (data.length < 256) {
          line(
              o,
              "      Data: "
                  + PythonRepr.ofStr(PythonRepr.ofBytes(data))
                  + " ("
                  + data.length
                  + " bytes)");
        } else {
          line(o, "      Data: " + data.length + " bytes");
        }
      }
    }
  }

  private static String u(int v) {
    return Integer.toUnsignedString(v);
  }

  private static String u(long v) {
    return Long.toUnsignedString(v);
  }

  private static void line(StringBuilder o, String s) {
    o.append(s).append('\n');
  }
}
