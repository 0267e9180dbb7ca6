package org.jverity.avb.tool;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.jverity.avb.ChainPartitionDescriptor;
import org.jverity.avb.Descriptor;
import org.jverity.avb.HashDescriptor;
import org.jverity.avb.HashtreeDescriptor;
import org.jverity.format.Hex;

/**
 * avbtool's {@code print_partition_digests}: each hash descriptor's digest and each hashtree
 * descriptor's root, by partition, following chain descriptors into the chained images.
 */
public record PartitionDigests(Path image) {
  /** One partition's digest. */
  public record Digest(String name, String digest) {}

  public List<Digest> apply() throws IOException {
    ParsedImage top = ParsedImage.read(image);
    List<Digest> out = new ArrayList<>();
    List<ParsedImage> chained = ChainedImages.of(top);
    int next = 0;
    for (Descriptor d : top.vbmeta().descriptors()) {
      if (d instanceof ChainPartitionDescriptor) {
        for (Descriptor c : chained.get(next++).vbmeta().descriptors()) {
          add(c, out);
        }
      } else {
        add(d, out);
      }
    }
    return List.copyOf(out);
  }

  private static void add(Descriptor d, List<Digest> out) {
    switch (d) {
      case HashDescriptor h -> out.add(new Digest(h.partitionName(), Hex.format(h.digest())));
      case HashtreeDescriptor h ->
          out.add(new Digest(h.partitionName(), Hex.format(h.rootDigest())));
      default -> {}
    }
  }

  /** avbtool's text: "name: digest" lines. */
  public static String text(List<Digest> digests) {
    StringBuilder b = new StringBuilder();
    for (Digest d : digests) {
      b.append(d.name()).append(": ").append(d.digest()).append('\n');
    }
    return b.toString();
  }

  /**
   * avbtool's {@code --json}: Python's {@code json.dumps({'partitions': [...]}, indent=2)}, no
   * final newline.
   */
  public static String json(List<Digest> digests) {
    if (digests.isEmpty()) {
      return "{\n  \"partitions\": []\n}";
    }
    StringBuilder b = new StringBuilder("{\n  \"partitions\": [\n");
    for (int i = 0; i < digests.size(); i++) {
      Digest d = digests.get(i);
      b.append("    {\n      \"name\": ")
          .append(quoted(d.name()))
          .append(",\n      \"digest\": ")
          .append(quoted(d.digest()))
          .append("\n    }")
          .append(i + 1 < digests.size() ? ",\n" : "\n");
    }
    return b.append("  ]\n}").toString();
  }

  /** A JSON string as Python writes it (ensure_ascii: anything past ASCII as \\uXXXX). */
  private static String quoted(String s) {
    StringBuilder b = new StringBuilder("\"");
    for (char c : s.toCharArray()) {
      switch (c) {
        case '"' -> b.append("\\\"");
        case '\\' -> b.append("\\\\");
        case '\n' -> b.append("\\n");
        case '\r' -> b.append("\\r");
        case '\t' -> b.append("\\t");
        case '\b' -> b.append("\\b");
        case '\f' -> b.append("\\f");
        default -> {
          if (c < 0x20 || c > 0x7e) {
            b.append(String.format("\\u%04x", (int) c));
          } else {
            b.append(c);
          }
        }
      }
    }
    return b.append('"').toString();
  }
}
